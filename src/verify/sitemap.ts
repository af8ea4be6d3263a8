// Finding and reading a site's sitemaps: robots.txt `Sitemap:` lines first, then the usual
// locations; sitemap indexes followed (visited set, depth and count limits); gzip handled.
// A small tolerant reader for <url>/<sitemap> blocks: sitemaps are simple and often sloppy.
import zlib from 'node:zlib';
import type { SafeClient } from '../net/safe-client.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { decodeText, fetchFollowing, header, type FetchFailureCode, type FetchOptions } from './fetch-page.ts';
import { normalizeUrl } from './urls.ts';

type SitemapProblemCode = FetchFailureCode | Extract<CodeIn<'verify'>, 'SITEMAP_NOT_FOUND' | 'SITEMAP_UNREADABLE'>;

export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
  /** The sitemap file it was found in. */
  sitemap: string;
  /** How many times it is listed (a receiver that stored an article twice lists it twice). */
  times: number;
}

export interface SitemapIndex {
  /** Sitemap files read, in order. */
  files: string[];
  /** By normalized URL. */
  entries: Map<string, SitemapEntry>;
  /** Why no sitemap was found or read, when none was. */
  problem: (Problem<SitemapProblemCode> & { fetchFailed: boolean }) | null;
}

const MAX_DEPTH = 3;
const MAX_FILES = 50;
const MAX_UNZIPPED = 50 * 1024 * 1024;

const decodeEntities = (s: string) =>
  s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&amp;/g, '&')
    .trim();

function tag(block: string, name: string): string | null {
  const m = new RegExp(`<(?:[\\w-]+:)?${name}[^>]*>([\\s\\S]*?)</(?:[\\w-]+:)?${name}>`, 'i').exec(block);
  return m ? decodeEntities(m[1]!) : null;
}

export function parseSitemapXml(xml: string): { urls: { loc: string; lastmod: string | null }[]; sitemaps: string[] } {
  const blocks = (name: string) =>
    [...xml.matchAll(new RegExp(`<(?:[\\w-]+:)?${name}[\\s>][\\s\\S]*?</(?:[\\w-]+:)?${name}>`, 'gi'))].map(
      (m) => m[0],
    );
  const urls = blocks('url').flatMap((b) => {
    const loc = tag(b, 'loc');
    return loc ? [{ loc, lastmod: tag(b, 'lastmod') }] : [];
  });
  const sitemaps = blocks('sitemap').flatMap((b) => tag(b, 'loc') ?? []);
  return { urls, sitemaps };
}

export async function readSitemaps(client: SafeClient, baseUrl: string, opts: FetchOptions): Promise<SitemapIndex> {
  const index: SitemapIndex = { files: [], entries: new Map(), problem: null };
  const candidates: string[] = [];
  const robots = await fetchFollowing(client, new URL('/robots.txt', baseUrl).href, { ...opts, accept: 'text/plain' });
  if (robots.ok) {
    for (const m of decodeText(robots.body, header(robots.headers, 'content-type')).matchAll(
      /^\s*sitemap\s*:\s*(\S+)/gim,
    )) {
      const u = normalizeUrl(m[1]!, robots.finalUrl);
      if (u) candidates.push(u);
    }
  }
  const fromRobots = candidates.length > 0;
  if (!fromRobots)
    for (const p of ['/sitemap.xml', '/sitemap_index.xml', '/sitemap-index.xml'])
      candidates.push(new URL(p, baseUrl).href);

  const visited = new Set<string>();
  let lastFailure: { code: SitemapProblemCode; message: string } | null = null;
  const visit = async (url: string, depth: number): Promise<void> => {
    if (visited.has(url) || visited.size >= MAX_FILES || depth > MAX_DEPTH) return;
    visited.add(url);
    const res = await fetchFollowing(client, url, { ...opts, accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5' });
    if (!res.ok) {
      if (res.code !== 'FETCH_NOT_FOUND') lastFailure = { code: res.code, message: res.message };
      return;
    }
    let body = res.body;
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        body = zlib.gunzipSync(body, { maxOutputLength: MAX_UNZIPPED });
      } catch {
        lastFailure = { code: 'SITEMAP_UNREADABLE', message: `${url} is not valid gzip` };
        return;
      }
    }
    const xml = decodeText(body, header(res.headers, 'content-type'));
    const parsed = parseSitemapXml(xml);
    if (!parsed.urls.length && !parsed.sitemaps.length && !/<(?:[\w-]+:)?(urlset|sitemapindex)[\s>]/i.test(xml)) return; // not a sitemap (an HTML 200 page, say)
    index.files.push(res.finalUrl);
    for (const u of parsed.urls) {
      const key = normalizeUrl(u.loc, res.finalUrl);
      if (!key) continue;
      const listed = index.entries.get(key);
      if (listed) listed.times += 1;
      else index.entries.set(key, { loc: u.loc, lastmod: u.lastmod, sitemap: res.finalUrl, times: 1 });
    }
    for (const child of parsed.sitemaps) {
      const next = normalizeUrl(child, res.finalUrl);
      if (next) await visit(next, depth + 1);
    }
  };
  for (const c of candidates) {
    await visit(c, 0);
    if (!fromRobots && index.files.length) break; // the first usual location that works
  }
  if (!index.files.length) {
    const failure = lastFailure as { code: SitemapProblemCode; message: string } | null;
    index.problem = failure
      ? { ...failure, fetchFailed: true }
      : {
          code: 'SITEMAP_NOT_FOUND',
          message: fromRobots
            ? `robots.txt names ${candidates.join(', ')}, but no readable sitemap is there`
            : `no Sitemap: line in robots.txt and nothing at ${candidates.join(', ')}`,
          fetchFailed: false,
        };
  }
  return index;
}
