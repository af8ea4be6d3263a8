// What a conformance check can see of what the receiver stored, from outside, as any visitor
// would: the test article's page (where the receiver replied it is, else the site's article path,
// else the sitemap entry naming its slug) and which version's marker it shows; and how many
// times the sitemap lists it. Read with verify_integration's fetcher: public hosts only, bounded.
import type { SafeClient } from '../../net/safe-client.ts';
import { decodeText, fetchFollowing, header } from '../../verify/fetch-page.ts';
import { readSitemaps } from '../../verify/sitemap.ts';
import type { TestArticle, Version } from './test-article.ts';

export interface SiteReading {
  client: SafeClient;
  timeoutMs: number;
  maxBytes: number;
  /** How long a page may take to show an accepted change (a cache expiring, a queue applying it). */
  settleMs: number;
  sleep: (ms: number) => Promise<void>;
}

export interface SiteLayout {
  /** Where pages and the sitemap are read when the receiver names no page of its own. */
  baseUrl: string;
  /** `articlePath` of site.yaml (`/blog/{slug}`), or null. */
  articlePath: string | null;
}

/** What the page showed: one of the versions looked for, none of them, or no page to look at. */
export type PageLook =
  | { seen: true; url: string; shows: Version | null }
  | { seen: false; url: string | null; why: string };

/** The sitemap's entries for the test article, each as often as it is listed; or why none could be read. */
export type Listing = { read: true; locs: string[] } | { read: false; why: string };

const POLL_MS = 200;

export function receiverSite(reading: SiteReading, layout: SiteLayout, test: TestArticle) {
  const fetchOpts = { timeoutMs: reading.timeoutMs, maxBytes: reading.maxBytes };
  const baseOf = (replyUrl: string | null) => (replyUrl ? new URL(replyUrl).origin : layout.baseUrl);

  async function listing(replyUrl: string | null): Promise<Listing> {
    const index = await readSitemaps(reading.client, baseOf(replyUrl), fetchOpts);
    if (index.problem) return { read: false, why: `no sitemap to read: ${index.problem.message}` };
    const locs = [...index.entries.values()]
      .filter((e) => e.loc.includes(test.slug))
      .flatMap((e) => Array.from({ length: e.times }, () => e.loc));
    return { read: true, locs };
  }

  async function pageUrl(replyUrl: string | null): Promise<string | null> {
    if (replyUrl) return replyUrl;
    if (layout.articlePath?.includes('{slug}'))
      return new URL(layout.articlePath.replaceAll('{slug}', test.slug), `${layout.baseUrl}/`).href;
    const listed = await listing(null);
    return listed.read ? (listed.locs[0] ?? null) : null;
  }

  /** The page's version among `versions`, waiting up to settleMs for `awaited` to show. */
  async function look(replyUrl: string | null, versions: Version[], awaited: Version | null): Promise<PageLook> {
    const url = await pageUrl(replyUrl);
    if (!url)
      return {
        seen: false,
        url: null,
        why: 'no page to look at: no {url} reply, no articlePath in site.yaml, and no sitemap entry names the test article',
      };
    const deadline = performance.now() + (awaited === null ? 0 : reading.settleMs);
    for (;;) {
      const page = await fetchFollowing(reading.client, url, fetchOpts);
      if (!page.ok && page.code !== 'FETCH_NOT_FOUND') return { seen: false, url, why: page.message };
      const source = page.ok ? decodeText(page.body, header(page.headers, 'content-type')) : '';
      const shows = awaited !== null && source.includes(test.marker(awaited)) ? awaited : shownOf(source, versions);
      if (shows === awaited || performance.now() >= deadline) {
        if (!page.ok) return { seen: false, url, why: `${url} answers 404` };
        return { seen: true, url, shows };
      }
      await reading.sleep(POLL_MS);
    }
  }

  const shownOf = (source: string, versions: Version[]): Version | null =>
    versions.find((v) => source.includes(test.marker(v))) ?? null;

  return { listing, pageUrl, look };
}
