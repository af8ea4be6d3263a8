// One article's live page, checked: fetched once, then the four checks (sitemap, canonical, html,
// byline) against what Quire published. Shared by verify_integration (every article of a site,
// one sitemap read for all), the check after each delivery (checkLivePage) and anything else that
// asks whether one article is live and right.
import type { SafeClient } from '../net/safe-client.ts';
import { checkByline } from './check-byline.ts';
import { checkCanonical } from './check-canonical.ts';
import { checkHtml } from './check-html.ts';
import { checkSitemap } from './check-sitemap.ts';
import { decodeText, fetchFollowing, header, type FetchOptions } from './fetch-page.ts';
import { parseDocument } from './html-tree.ts';
import { check, type ArticleReport, type CheckId } from './report.ts';
import { readSitemaps, type SitemapIndex } from './sitemap.ts';

/** What Quire published of an article: what its page must show. */
export interface ArticleToVerify {
  slug: string;
  html: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
  /** Where the receiver said the article landed (its `{url}` reply), if it did. */
  replyUrl: string | null;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_PAGE_BYTES = 2 * 1024 * 1024;

export interface PageCheckDeps {
  client: SafeClient;
  /** Each request's time-out (default 10 s). */
  timeoutMs?: number;
  /** Each page or sitemap file read at most this far (default 2 MiB). */
  maxPageBytes?: number;
  now?: () => number;
}

export const fetchOptionsOf = (deps: PageCheckDeps): FetchOptions => ({
  timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  maxBytes: deps.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES,
});

/** The four checks of one article's page at `url`, against sitemaps already read. */
export async function checkArticlePage(
  deps: PageCheckDeps,
  sitemaps: SitemapIndex,
  url: string,
  article: Pick<ArticleToVerify, 'slug' | 'html' | 'updatedAt' | 'author'>,
): Promise<ArticleReport> {
  const now = (deps.now ?? Date.now)();
  const page = await fetchFollowing(deps.client, url, fetchOptionsOf(deps));
  if (!page.ok) {
    const pageChecks: CheckId[] = ['canonical', 'html', 'byline'];
    const failure = page.code === 'FETCH_NOT_FOUND' ? 'fail' : 'error';
    return {
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
    };
  }
  const source = decodeText(page.body, header(page.headers, 'content-type'));
  const doc = parseDocument(source);
  return {
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
  };
}

/**
 * One article's live page, checked on its own: the site's sitemaps read from `siteUrl`, then
 * the page at `pageUrl` (the receiver's `{url}` reply, or the article's URL on the site).
 */
export async function checkLivePage(
  deps: PageCheckDeps,
  input: { siteUrl: string; pageUrl: string; article: Pick<ArticleToVerify, 'slug' | 'html' | 'updatedAt' | 'author'> },
): Promise<ArticleReport> {
  const sitemaps = await readSitemaps(deps.client, input.siteUrl, fetchOptionsOf(deps));
  return checkArticlePage(deps, sitemaps, input.pageUrl, input.article);
}
