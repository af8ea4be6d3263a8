// Verifies one article's live page, at the URL its receiver replied, with verify_integration's
// four checks (sitemap, canonical, unmodified html, byline): the same step the check after each
// delivery makes (checkLivePage), the sitemaps read from the page's own origin.
import type { SafeClient } from '../../net/safe-client.ts';
import { checkLivePage } from '../../verify/check-article-page.ts';
import { summarize, type CheckResult } from '../../verify/report.ts';

export interface LivePage {
  slug: string;
  /** Where the receiver said the article is. */
  url: string;
  html: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
}

export interface LivePageResult {
  /** No check failed, and none could not be run. */
  ok: boolean;
  checks: CheckResult[];
}

export async function verifyLivePage(
  deps: { client: SafeClient; timeoutMs?: number },
  page: LivePage,
): Promise<LivePageResult> {
  const report = await checkLivePage(
    { client: deps.client, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) },
    {
      siteUrl: new URL(page.url).origin,
      pageUrl: page.url,
      article: { slug: page.slug, html: page.html, updatedAt: page.updatedAt, author: page.author },
    },
  );
  return { ok: summarize([report]).ok, checks: report.checks };
}
