// An attempt's outcome as the state store keeps it (an attempt record's columns) and read back
// from them, old attempts included: the words people read (`error`, with a network failure's
// kind beside it), the status, the reply, a redirect's target as a field of its own.
import type { AttemptRecord } from '../store/state-store.ts';
import { REFUSAL_KINDS } from '../net/target-url.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { answered, unanswered } from './classify-attempt.ts';

export const NO_WEBHOOK_WORDS = 'no webhook registered for this site';

export function attemptRecordOf(
  base: Pick<AttemptRecord, 'url' | 'startedAt' | 'durationMs'>,
  outcome: AttemptOutcome,
): AttemptRecord {
  const unansweredRecord = (error: string, errorKind: AttemptRecord['errorKind']): AttemptRecord => ({
    ...base,
    status: null,
    error,
    errorKind,
    replyUrl: null,
    replyId: null,
    redirectTo: null,
  });
  switch (outcome.kind) {
    case 'delivered':
      return {
        ...base,
        status: outcome.status,
        error: outcome.note,
        errorKind: null,
        replyUrl: outcome.replyUrl,
        replyId: outcome.replyId,
        redirectTo: null,
      };
    case 'http_failure':
      return {
        ...base,
        status: outcome.status,
        error: outcome.message,
        errorKind: null,
        replyUrl: null,
        replyId: null,
        redirectTo: null,
      };
    case 'redirect':
      return {
        ...base,
        status: outcome.status,
        error: redirectWords(outcome.status, outcome.location),
        errorKind: null,
        replyUrl: null,
        replyId: null,
        redirectTo: outcome.location,
      };
    case 'refused':
      return unansweredRecord(outcome.message, REFUSAL_KINDS[outcome.code]);
    case 'network':
      return unansweredRecord(outcome.message, outcome.failure);
    case 'timeout':
      return unansweredRecord(outcome.message, 'timeout');
    case 'no_webhook':
      return unansweredRecord(outcome.message, null);
  }
}

/** What a recorded attempt came to, read as a fresh one would be (its Retry-After is not kept). */
export function outcomeOfRecord(a: AttemptRecord): AttemptOutcome {
  if (a.status !== null) {
    return answered(a.status, {
      retryAfter: undefined,
      now: a.startedAt,
      reply: () => ({ url: a.replyUrl, id: a.replyId, note: a.error }),
      location: () => a.redirectTo ?? null,
      recorded: () => a.error ?? '',
    });
  }
  if (a.errorKind) return unanswered(a.errorKind, a.error ?? 'unknown error');
  // No status and no kind: the one attempt made without a request.
  return { kind: 'no_webhook', message: a.error ?? 'unknown error' };
}

/** How a redirect reads in the delivery log. */
function redirectWords(status: number, location: string | null): string {
  return `redirect (${status}${location ? ` to ${location}` : ''}) not followed: register the final URL`;
}
