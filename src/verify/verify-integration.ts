// verify_integration: for each article, find its page on the receiving site, fetch it once, and
// run the four checks. The site's faults are `fail`; the verifier's own trouble (time-out, DNS,
// a 403 bot wall) is `error`, so the two are never mixed up.
import type { SafeClient } from '../net/safe-client.ts';
import { checkByline } from './check-byline.ts';
import { checkCanonical } from './check-canonical.ts';
import { checkHtml } from './check-html.ts';
import { checkSitemap } from './check-sitemap.ts';
import { decodeText, fetchFollowing, header } from './fetch-page.ts';
import { parseDocument } from './html-tree.ts';
import { check, summarize, type ArticleReport, type CheckId, type VerifyReport } from './report.ts';
import { readSitemaps } from './sitemap.ts';

export interface ArticleToVerify {
  slug: string;
  html: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
  replyUrl: string | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_PAGE_BYTES = 2 * 1024 * 1024;

export async function verifyIntegration(
  deps: { client: SafeClient; timeoutMs?: number; maxPageBytes?: number; now?: () => number },
  input: { siteId: string; baseUrl: string; articlePath: string; articles: ArticleToVerify[] },
): Promise<VerifyReport> {
  const opts = {
    timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: deps.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES,
  };
  const now = (deps.now ?? Date.now)();
  const sitemaps = await readSitemaps(deps.client, input.baseUrl, opts);
  const reports: ArticleReport[] = [];
  for (const article of input.articles) {
    const url = pageUrlOf(article, input, sitemaps.entries);
    const page = await fetchFollowing(deps.client, url, opts);
    if (!page.ok) {
      const pageChecks: CheckId[] = ['canonical', 'html', 'byline'];
      const failure = page.code === 'FETCH_NOT_FOUND' ? 'fail' : 'error';
      reports.push({
        slug: article.slug,
        url,
        finalUrl: null,
        redirects: page.redirects,
        checks: [
          checkSitemap(sitemaps, url, article.updatedAt, now),
          ...pageChecks.map((id) =>
            check(
              id,
              failure,
              failure === 'fail' ? 'PAGE_NOT_FOUND' : page.code,
              `the article page could not be fetched: ${page.message}`,
              {
                expected: url,
                fix:
                  failure === 'fail'
                    ? 'Serve the article at this URL, or reply {url} to the webhook with where it is.'
                    : null,
              },
            ),
          ),
        ],
      });
      continue;
    }
    const source = decodeText(page.body, header(page.headers, 'content-type'));
    const doc = parseDocument(source);
    reports.push({
      slug: article.slug,
      url,
      finalUrl: page.finalUrl,
      redirects: page.redirects,
      checks: [
        checkSitemap(sitemaps, page.finalUrl, article.updatedAt, now),
        checkCanonical(doc, page),
        checkHtml(article.html, source, doc),
        checkByline(article.author, doc, source, page.finalUrl),
      ],
    });
  }
  return { ...summarize(reports), siteId: input.siteId, baseUrl: input.baseUrl, articles: reports };
}

/** The receiver's {url} reply, else base URL + article path, else the sitemap entry ending in the slug. */
function pageUrlOf(
  article: ArticleToVerify,
  input: { baseUrl: string; articlePath: string },
  entries: Map<string, { loc: string }>,
): string {
  if (article.replyUrl) return article.replyUrl;
  if (input.articlePath.includes('{slug}'))
    return new URL(input.articlePath.replaceAll('{slug}', article.slug), `${input.baseUrl}/`).href;
  const fromSitemap = [...entries.values()].find((e) => e.loc.replace(/\/$/, '').endsWith(`/${article.slug}`));
  return fromSitemap?.loc ?? new URL(article.slug, `${input.baseUrl}/`).href;
}
