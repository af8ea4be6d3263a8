// One page check a verifier holds: the delivered article's live page (the receiver's `{url}`
// reply, else its URL on the site) checked as verify_integration checks it, within a time budget,
// and what it came to, with when to look again while the site may still be catching up.
import { clientWithDeadline } from '../net/deadline-client.ts';
import type { SafeClient } from '../net/safe-client.ts';
import { fixFor } from '../problems/problem.ts';
import type { ClaimedPageCheck, PageCheckResult, StoredCheck } from '../store/state-store.ts';
import { checkLivePage } from '../verify/check-article-page.ts';
import { liveVerdict } from '../verify/live-verdict.ts';
import { clip, type CheckResult } from '../verify/report.ts';

/** A check of a page that is not live and right is made again this many times at most, in all. */
export const MAX_TRIES = 4;
/** What one check may take in all (robots.txt, the sitemaps, the page), whatever the site does. */
export const CHECK_BUDGET_MS = 30_000;
/** The spacing of checks made again is at least this, whatever the first delay. */
const MIN_RECHECK_BASE_MS = 5_000;

/**
 * How long after a check that did not find the page live the next is made: 2, 6, then 18 times
 * the first delay (at least 5 s), so a site that rebuilds slowly is given minutes; null when the
 * tries are spent.
 */
export function recheckAfterMs(delayMs: number, triesMade: number): number | null {
  if (triesMade >= MAX_TRIES) return null;
  return 2 * Math.max(delayMs, MIN_RECHECK_BASE_MS) * 3 ** (triesMade - 1);
}

export interface PageCheckDeps {
  client: SafeClient;
  now: () => number;
  /** Each request's time-out. */
  timeoutMs: number;
  /** The whole check's. */
  budgetMs: number;
  /** True once the verifier stops: requests not made yet fail at once. */
  stopping?: () => boolean;
}

export async function checkDeliveredPage(deps: PageCheckDeps, claimed: ClaimedPageCheck): Promise<PageCheckResult> {
  const started = deps.now();
  const url = claimed.replyUrl ?? claimed.plan.articleUrl;
  const deadline = started + deps.budgetMs;
  const client = clientWithDeadline(deps.client, deadline, () => (deps.stopping?.() ? deadline : deps.now()));
  const html = articleHtmlOf(claimed.body);
  if (html === null) return failedCheck(claimed, started, 'the delivery body holds no article html to look for');
  const report = await checkLivePage(
    { client, timeoutMs: deps.timeoutMs, now: deps.now },
    {
      siteUrl: claimed.plan.siteUrl,
      pageUrl: url,
      article: { slug: claimed.slug, html, updatedAt: claimed.plan.updatedAt, author: claimed.plan.author },
    },
  );
  const verdict = liveVerdict(report);
  const checkedAt = deps.now();
  const again = verdict.state === 'live' ? null : recheckAfterMs(claimed.plan.delayMs, claimed.tries + 1);
  return {
    state: verdict.state,
    code: verdict.failing?.code ?? null,
    message: verdict.failing?.message ?? `the page at ${report.finalUrl ?? url} shows the article as published`,
    fix: verdict.failing ? (verdict.failing.fix ?? fixFor(verdict.failing.code)) : null,
    url,
    checks: report.checks.map(stored),
    checkedAt,
    nextCheckAt: again === null ? null : checkedAt + again,
  };
}

/** A check that could not be made (Quire's own failure): unverified, not made again. */
export function failedCheck(claimed: ClaimedPageCheck, at: number, why: unknown): PageCheckResult {
  return {
    state: 'unverified',
    code: 'PAGE_CHECK_FAILED',
    message: `the check could not be made: ${why instanceof Error ? why.message : String(why)}`,
    fix: fixFor('PAGE_CHECK_FAILED'),
    url: claimed.replyUrl ?? claimed.plan.articleUrl,
    checks: [],
    checkedAt: at,
    nextCheckAt: null,
  };
}

/** A check as kept: its words cut short (they may quote the page). */
function stored(c: CheckResult): StoredCheck {
  const cut = (s: string | null) => (s === null ? null : clip(s));
  return {
    id: c.id,
    status: c.status,
    code: c.code,
    message: clip(c.message, 600),
    expected: cut(c.expected),
    actual: cut(c.actual),
    fix: c.fix,
  };
}

/** The `article.html` of a `published` or `updated` body Quire queued; null when it has none. */
function articleHtmlOf(body: Buffer): string | null {
  try {
    const html = (JSON.parse(body.toString('utf8')) as { article?: { html?: unknown } }).article?.html;
    return typeof html === 'string' ? html : null;
  } catch {
    return null;
  }
}
