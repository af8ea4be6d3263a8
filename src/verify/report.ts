// The shape of a verify_integration report: per article, one result per check, with a stable
// code, what was expected and found, evidence, and a concrete fix for every failure.
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';

export type CheckId = 'sitemap' | 'canonical' | 'html' | 'byline';
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'error' | 'skipped';

export interface CheckResult extends Problem<CodeIn<'verify'>> {
  id: CheckId;
  status: CheckStatus;
  expected: string | null;
  actual: string | null;
  evidence: string | null;
  fix: string | null;
}

export interface ArticleReport {
  slug: string;
  url: string;
  finalUrl: string | null;
  redirects: string[];
  checks: CheckResult[];
}

export interface VerifyReport {
  ok: boolean;
  summary: string;
  siteId: string;
  baseUrl: string;
  articles: ArticleReport[];
}

export function check(
  id: CheckId,
  status: CheckStatus,
  code: CodeIn<'verify'>,
  message: string,
  more: Partial<Pick<CheckResult, 'expected' | 'actual' | 'evidence' | 'fix'>> = {},
): CheckResult {
  return {
    id,
    status,
    code,
    message,
    expected: more.expected ?? null,
    actual: more.actual ?? null,
    evidence: more.evidence ?? null,
    fix: more.fix ?? null,
  };
}

export function summarize(articles: ArticleReport[]): { ok: boolean; summary: string } {
  const all = articles.flatMap((a) => a.checks);
  const n = (s: CheckStatus) => all.filter((c) => c.status === s).length;
  const parts = [`${n('pass')} passed`, `${n('warn')} warning${n('warn') === 1 ? '' : 's'}`, `${n('fail')} failed`];
  if (n('error')) parts.push(`${n('error')} could not be checked`);
  if (n('skipped')) parts.push(`${n('skipped')} skipped`);
  return {
    ok: n('fail') === 0 && n('error') === 0,
    summary: `${articles.length} article${articles.length === 1 ? '' : 's'}: ${parts.join(', ')}`,
  };
}

/** A short excerpt for evidence fields. */
export const clip = (s: string, max = 300): string => (s.length > max ? `${s.slice(0, max)}…` : s);
