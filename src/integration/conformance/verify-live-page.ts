// Verifies one article's live page, at the URL its receiver replied, with verify_integration's
// four checks (sitemap, canonical, unmodified html, byline). A stand-in: the "verify this
// article's live page" step made for checks after each delivery is meant to replace it, with
// the same inputs and result.
import type { SafeClient } from '../../net/safe-client.ts';
import type { CheckResult } from '../../verify/report.ts';
import { verifyIntegration } from '../../verify/verify-integration.ts';

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
  const report = await verifyIntegration(
    { client: deps.client, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) },
    {
      siteId: '',
      baseUrl: new URL(page.url).origin,
      articlePath: '',
      articles: [
        { slug: page.slug, html: page.html, updatedAt: page.updatedAt, author: page.author, replyUrl: page.url },
      ],
    },
  );
  return { ok: report.ok, checks: report.articles.flatMap((a) => a.checks) };
}
