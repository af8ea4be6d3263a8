// What one delivery attempt came to, as data: made once from what the exchange gave
// (classify-attempt.ts), then carried as it is: to what becomes of the delivery
// (retry-policy.ts), to the state store as an attempt's columns and back (attempt-record.ts), to
// the explanation in the catalogue's words (explain-attempt.ts) and to the delivery log line.
import type { NetworkFailureKind } from '../net/net-errors.ts';
import { REFUSAL_KINDS, type TargetErrorCode } from '../net/target-url.ts';
import type { CodeIn } from '../problems/catalogue.ts';

/** What becomes of the delivery: done, tried again (not before a Retry-After), or failed for good (410 also disables its webhook). */
export type RetryDecision =
  | { kind: 'success' }
  | { kind: 'retry'; retryAfterMs: number | null }
  | { kind: 'fail'; disable: boolean };

/** The code that explains a failing answer of the receiver (other than a redirect). */
export type FailingAnswerCode = Extract<
  CodeIn<'delivery'>,
  'REJECTED_SECRET' | 'NOT_FOUND' | 'GONE' | 'RATE_LIMITED' | 'RECEIVER_ERROR' | 'REJECTED'
>;

export type AttemptOutcome =
  /** A 2xx, with the receiver's `{url, id}` reply, or a note saying why the reply was ignored. */
  | { kind: 'delivered'; status: number; replyUrl: string | null; replyId: string | null; note: string | null }
  /** Any other answer but a redirect: its retry class, the code that explains it, the words recorded (`HTTP 503 — …`). */
  | {
      kind: 'http_failure';
      status: number;
      retry: Exclude<RetryDecision, { kind: 'success' }>;
      code: FailingAnswerCode;
      message: string;
    }
  /** A 3xx, never followed: where it pointed, if it said (control characters taken out, cut short). */
  | { kind: 'redirect'; status: number; location: string | null }
  /** Not sent: the target policy refused the URL, or the address its host resolved to. */
  | { kind: 'refused'; code: TargetErrorCode; message: string }
  /** No answer: the network failed. */
  | { kind: 'network'; failure: NetworkFailureKind; message: string }
  /** No complete answer within the time-out. */
  | { kind: 'timeout'; message: string }
  /** Not sent: the site has no webhook (removed after the delivery was queued). */
  | { kind: 'no_webhook'; message: string };

/** What the delivery log line calls a failure (`timeout`, `http_503`, `redirect`); null when delivered. */
export function logKind(outcome: AttemptOutcome): string | null {
  switch (outcome.kind) {
    case 'delivered':
      return null;
    case 'http_failure':
      return `http_${outcome.status}`;
    case 'refused':
      return REFUSAL_KINDS[outcome.code];
    case 'network':
      return outcome.failure;
    default:
      return outcome.kind;
  }
}
