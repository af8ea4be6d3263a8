// Plain words for what happened to a delivery attempt, and what to do about it: shown by
// `webhook test`, the web app's Test connection and the MCP test_webhook tool. The words are the
// catalogue's, made from the outcome's facts.
import type { CodeIn } from '../problems/catalogue.ts';
import { fixFor, problemOf, type Problem } from '../problems/problem.ts';
import type { AttemptRecord } from '../store/state-store.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { outcomeOfRecord } from './attempt-record.ts';

/** A URL that can never be reached as saved is reported with the same code as when saving it. */
export type ExplanationCode = CodeIn<'delivery'> | 'URL_INVALID';

/** The problem (or DELIVERED) with a stable code for tools and tests. */
export interface Explanation extends Problem<ExplanationCode> {
  ok: boolean;
}

/**
 * `willRetry`: whether this delivery gets another attempt on its own. A Test connection is sent
 * once, so its explanation must not promise retries.
 */
export function explainOutcome(
  outcome: AttemptOutcome,
  { willRetry, durationMs }: { willRetry: boolean; durationMs: number },
): Explanation {
  const failed = (problem: Problem<ExplanationCode>): Explanation => ({ ok: false, ...problem });
  switch (outcome.kind) {
    case 'delivered':
      return {
        ok: true,
        ...problemOf('DELIVERED', {
          status: outcome.status,
          durationMs,
          replyUrl: outcome.replyUrl,
          replyId: outcome.replyId,
          note: outcome.note,
        }),
      };
    case 'http_failure':
      return failed(failingAnswer(outcome, willRetry));
    case 'redirect':
      return failed(problemOf('REDIRECT', { status: outcome.status, location: outcome.location }));
    case 'refused':
      if (outcome.code === 'URL_HOST_NOT_PUBLIC')
        return failed(problemOf('TARGET_NOT_PUBLIC', { detail: outcome.message }));
      return failed({ code: 'URL_INVALID', message: `${outcome.message}. ${fixFor('URL_INVALID')}` });
    case 'timeout':
      return failed(problemOf('TIMEOUT', { detail: outcome.message }));
    case 'network':
      return failed(networkFailure(outcome));
    case 'no_webhook':
      return failed(problemOf('NETWORK_ERROR', { detail: outcome.message }));
  }
}

function failingAnswer(
  outcome: Extract<AttemptOutcome, { kind: 'http_failure' }>,
  willRetry: boolean,
): Problem<ExplanationCode> {
  const { status } = outcome;
  switch (outcome.code) {
    case 'REJECTED_SECRET':
      return problemOf('REJECTED_SECRET', { status });
    case 'NOT_FOUND':
      return problemOf('NOT_FOUND', { status });
    case 'GONE':
      return problemOf('GONE', {});
    case 'RATE_LIMITED':
      return problemOf('RATE_LIMITED', { willRetry });
    case 'RECEIVER_ERROR':
      return problemOf('RECEIVER_ERROR', { status, willRetry });
    case 'REJECTED':
      return problemOf('REJECTED', { status, recorded: outcome.message });
  }
}

function networkFailure(outcome: Extract<AttemptOutcome, { kind: 'network' }>): Problem<ExplanationCode> {
  const detail = outcome.message;
  switch (outcome.failure) {
    case 'dns':
      return problemOf('DNS_FAILED', { detail });
    case 'refused':
      return problemOf('CONNECTION_REFUSED', { detail });
    case 'tls':
      return problemOf('TLS_FAILED', { detail });
    case 'reset':
      return problemOf('CONNECTION_RESET', { detail });
    case 'network':
      return problemOf('NETWORK_ERROR', { detail: `network: ${detail}` }); // as the log shows it
  }
}

/** A recorded attempt explained (its outcome read back from the record). */
export function explainAttempt(a: AttemptRecord, { willRetry }: { willRetry: boolean }): Explanation {
  return explainOutcome(outcomeOfRecord(a), { willRetry, durationMs: a.durationMs });
}
