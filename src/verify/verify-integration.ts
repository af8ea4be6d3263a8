// verify_integration: for each article, find its page on the receiving site, fetch it once, and
// run the four checks (check-article-page.ts). The site's faults are `fail`; the verifier's own
// trouble (time-out, DNS, a 403 bot wall) is `error`, so the two are never mixed up.
import { checkArticlePage, fetchOptionsOf, type ArticleToVerify, type PageCheckDeps } from './check-article-page.ts';
import { summarize, type ArticleReport, type VerifyReport } from './report.ts';
import { readSitemaps } from './sitemap.ts';

export type { ArticleToVerify } from './check-article-page.ts';

export async function verifyIntegration(
  deps: PageCheckDeps,
  input: { siteId: string; baseUrl: string; articlePath: string; articles: ArticleToVerify[] },
): Promise<VerifyReport> {
  const sitemaps = await readSitemaps(deps.client, input.baseUrl, fetchOptionsOf(deps));
  const reports: ArticleReport[] = [];
  for (const article of input.articles)
    reports.push(await checkArticlePage(deps, sitemaps, pageUrlOf(article, input, sitemaps.entries), article));
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
