// The shape of a conformance report: one result per rule, ok or not, a warning where the receiver
// works but could do better (or could not be seen), the catalogue's code and a fix for each problem.
import type { ExplanationCode } from '../../delivery/explain-attempt.ts';
import type { CodeIn } from '../../problems/catalogue.ts';
import { fixFor } from '../../problems/problem.ts';

/** The rules, in the order they are run and printed. */
export const RULE_IDS = [
  'published',
  'redelivery',
  'updated',
  'out-of-date',
  'forged',
  'verification',
  'raw-body',
  'live-page',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** A rule's problem: the conformance codes, what a delivery came to, or a live page's verify check. */
export type RuleCode = CodeIn<'conformance'> | ExplanationCode | CodeIn<'verify'>;

export interface RuleResult {
  id: RuleId;
  /** False only for a failure; a warning is ok. */
  ok: boolean;
  warning?: true;
  code?: RuleCode;
  detail: string;
  fix?: string;
}

/** What the receiver checks before it uses a request, as the two mixed requests showed it. */
export type Verifies = 'signature' | 'both' | 'bearer' | 'either' | 'neither';

export interface ConformanceReport {
  /** No rule failed (warnings allowed). */
  ok: boolean;
  summary: string;
  site: string;
  webhookUrl: string;
  /** The slug (= id) of the test article sent. */
  testSlug: string;
  verifies: Verifies | null;
  rules: RuleResult[];
  /** What became of the test article on the receiver. */
  cleanup: string;
}

export const pass = (id: RuleId, detail: string): RuleResult => ({ id, ok: true, detail });

export const warn = (id: RuleId, code: RuleCode, detail: string, fix?: string): RuleResult => ({
  id,
  ok: true,
  warning: true,
  code,
  detail,
  fix: fix ?? fixFor(code),
});

export const fail = (id: RuleId, code: RuleCode, detail: string, fix?: string): RuleResult => ({
  id,
  ok: false,
  code,
  detail,
  fix: fix ?? fixFor(code),
});

export function summarize(rules: readonly RuleResult[]): { ok: boolean; summary: string } {
  const failed = rules.filter((r) => !r.ok).length;
  const warned = rules.filter((r) => r.warning).length;
  const passed = rules.length - failed - warned;
  return {
    ok: failed === 0,
    summary: `${passed} passed, ${warned} warning${warned === 1 ? '' : 's'}, ${failed} failed`,
  };
}
