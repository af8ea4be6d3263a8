// The one reading of what an exchange with a receiver gave: its answer by HTTP status (the retry
// class from retry-policy.ts, the code that explains a failure), a redirect's target, the reply;
// or, without an answer, a refusal by the target policy, a time-out or a network failure. Also
// reads a stored attempt's status back (attempt-record.ts), so old and new attempts agree.
import type { HttpOutcome } from '../net/safe-client.ts';
import type { NetErrorKind, NetworkFailureKind } from '../net/net-errors.ts';
import { refusalCodeOf } from '../net/target-url.ts';
import type { AttemptOutcome, FailingAnswerCode } from './attempt-outcome.ts';
import { parseReply } from './receiver-reply.ts';
import { classifyStatus } from './retry-policy.ts';

export function classifyExchange(res: HttpOutcome, now: number): AttemptOutcome {
  if (!res.ok) return unanswered(res.kind, res.message);
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return answered(res.status, {
    retryAfter: header('retry-after'),
    now,
    reply: () => parseReply(res.body, res.truncated),
    location: () => cleanLocation(header('location')),
    recorded: () => failureWords(res.status, res.body),
  });
}

/** What an answer is read from; the parts are read only for the statuses that have them. */
export interface Answer {
  retryAfter: string | undefined;
  now: number;
  reply: () => { url: string | null; id: string | null; note: string | null };
  location: () => string | null;
  /** A failure's words as recorded. */
  recorded: () => string;
}

export function answered(status: number, answer: Answer): AttemptOutcome {
  const retry = classifyStatus(status, answer.retryAfter, answer.now);
  if (retry.kind === 'success') {
    const reply = answer.reply();
    return { kind: 'delivered', status, replyUrl: reply.url, replyId: reply.id, note: reply.note };
  }
  if (status >= 300 && status < 400) return { kind: 'redirect', status, location: answer.location() };
  return { kind: 'http_failure', status, retry, code: failingAnswerCode(status), message: answer.recorded() };
}

export function unanswered(kind: NetErrorKind, message: string): AttemptOutcome {
  const code = refusalCodeOf(kind);
  if (code) return { kind: 'refused', code, message };
  if (kind === 'timeout') return { kind: 'timeout', message };
  return { kind: 'network', failure: kind as NetworkFailureKind, message }; // neither a refusal nor the time-out
}

function failingAnswerCode(status: number): FailingAnswerCode {
  if (status === 401 || status === 403) return 'REJECTED_SECRET';
  if (status === 404 || status === 405) return 'NOT_FOUND';
  if (status === 410) return 'GONE';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'RECEIVER_ERROR';
  return 'REJECTED';
}

const MAX_LOCATION_CHARS = 300;

/** A Location header as it may be shown: without control characters, cut short; null when absent or empty. */
function cleanLocation(unsafeLocation: string | undefined): string | null {
  return unsafeLocation?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_LOCATION_CHARS) || null;
}

/** `HTTP 503 — <the start of the body>`; a 410 says the webhook is disabled. */
function failureWords(status: number, body: Buffer): string {
  return `HTTP ${status}${status === 410 ? ': the receiver is gone; webhook disabled' : ''}${bodySnippet(body)}`;
}

function bodySnippet(body: Buffer): string {
  const text = body.toString('utf8', 0, 200).replace(/\s+/g, ' ').trim();
  return text ? ` — ${text}${body.length > 200 ? '…' : ''}` : '';
}
