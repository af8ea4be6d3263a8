// The inputs of verify_integration for one site, from what Quire published: the site's base URL
// and article path, each published article's html, updatedAt and author, and where the
// receiver said it landed. Shared by the MCP tool and `quire verify`.
// One base per run: the given base URL, else site.yaml's `url`. The sitemap is read from it and
// every page is fetched on it; a receiver's reply URL keeps its path but takes the base's origin
// (replies remembered from older deliveries may name another host).
import type { Article } from '../contract/article.ts';
import { parseBody, type Snapshot } from '../snapshot/snapshot-reader.ts';
import type { SafeClient } from '../net/safe-client.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import type { Outbox } from '../store/state-store.ts';
import type { VerifyReport } from '../verify/report.ts';
import { verifyIntegration, type ArticleToVerify } from '../verify/verify-integration.ts';

/** Checks fetch pages one by one; beyond this many articles the caller must name slugs. */
export const DEFAULT_ARTICLE_CAP = 25;

export interface VerifySiteInput {
  siteId: string;
  baseUrl?: string | undefined;
  slugs?: string[] | undefined;
}

export type VerifySiteResult =
  | { ok: true; report: VerifyReport; capped: number }
  | ({ ok: false } & Problem<Extract<CodeIn<'verify'>, 'SITE_NOT_BUILT' | 'BASE_URL_INVALID' | 'SLUG_NOT_PUBLISHED'>>);

export async function verifySite(
  deps: { snapshot: Snapshot | null; outbox: Outbox; client: SafeClient; timeoutMs?: number },
  input: VerifySiteInput,
): Promise<VerifySiteResult> {
  const site = deps.snapshot?.sites.get(input.siteId);
  const manifestSite = deps.snapshot?.manifest.sites[input.siteId];
  if (!site || !manifestSite)
    return {
      ok: false,
      code: 'SITE_NOT_BUILT',
      message: `no site "${input.siteId}" in the build (sites: ${[...(deps.snapshot?.sites.keys() ?? [])].join(', ') || 'none'})`,
    };
  const baseUrl = (input.baseUrl ?? manifestSite.url).replace(/\/+$/, '');
  try {
    if (!/^https?:$/.test(new URL(baseUrl).protocol)) throw new Error('not http(s)');
  } catch {
    return { ok: false, code: 'BASE_URL_INVALID', message: `"${baseUrl}" is not an http(s) base URL` };
  }
  let slugs = input.slugs?.length ? input.slugs : site.items.map((i) => i.item.slug);
  const unknown = slugs.filter((s) => !site.articles.has(s));
  if (unknown.length)
    return {
      ok: false,
      code: 'SLUG_NOT_PUBLISHED',
      message: `not published on ${input.siteId}: ${unknown.join(', ')}`,
    };
  const capped = Math.max(0, slugs.length - DEFAULT_ARTICLE_CAP);
  if (!input.slugs?.length) slugs = slugs.slice(0, DEFAULT_ARTICLE_CAP);
  const articles: ArticleToVerify[] = [];
  for (const slug of slugs) {
    const a = parseBody(site.articles.get(slug)!) as Pick<Article, 'html' | 'updatedAt' | 'author'>;
    articles.push({
      slug,
      html: a.html,
      updatedAt: a.updatedAt,
      author: a.author ? { name: a.author.name, url: a.author.url } : null,
      replyUrl: onBase(await deps.outbox.latestReplyUrl(input.siteId, slug), baseUrl),
    });
  }
  const report = await verifyIntegration(
    { client: deps.client, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) },
    { siteId: input.siteId, baseUrl, articlePath: manifestSite.articlePath, articles },
  );
  return { ok: true, report, capped };
}

/** A remembered reply URL moved onto this run's base (its path and query kept), or null. */
function onBase(unsafeReplyUrl: string | null, baseUrl: string): string | null {
  if (unsafeReplyUrl === null || !URL.canParse(unsafeReplyUrl)) return null;
  const reply = new URL(unsafeReplyUrl);
  const base = new URL(baseUrl);
  if (reply.origin === base.origin) return reply.href;
  return new URL(`${reply.pathname}${reply.search}`, base.origin).href;
}
