// What one article's page check comes to, in one word: `live` (nothing failed: passes, warnings
// and skips), `render_problem` (the site got something wrong: a check failed) or `unverified` (the
// verifier could not tell: a time-out, a bot wall). A failure wins over the verifier's trouble:
// a definite problem is worth showing even when another check could not be made.
import type { ArticleReport, CheckId, CheckResult } from './report.ts';

export type LiveVerdict =
  | { state: 'live'; failing: null }
  | { state: 'render_problem' | 'unverified'; failing: CheckResult };

/** The page's own checks first: a wrong page says more than a stale sitemap. */
const PRIORITY: CheckId[] = ['html', 'canonical', 'byline', 'sitemap'];

export function liveVerdict(report: Pick<ArticleReport, 'checks'>): LiveVerdict {
  const ordered = [...report.checks].sort((a, b) => PRIORITY.indexOf(a.id) - PRIORITY.indexOf(b.id));
  const failed = ordered.find((c) => c.status === 'fail');
  if (failed) return { state: 'render_problem', failing: failed };
  const unknown = ordered.find((c) => c.status === 'error');
  if (unknown) return { state: 'unverified', failing: unknown };
  return { state: 'live', failing: null };
}
