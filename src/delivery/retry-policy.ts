// When a failed delivery is tried again. Documented in docs/webhooks.md ("Delivery").
//
// Retried: network errors, timeouts, a host that resolves to a non-public address (its DNS may
// change), 408, 429 (a longer Retry-After honoured) and 5xx. Not retried: other 4xx, 3xx
// (redirects are never followed), and a URL that can never be reached as registered (not a URL,
// not https, credentials in it). 410 Gone also disables the webhook.
import type { AttemptOutcome, RetryDecision } from './attempt-outcome.ts';

// Delay after the nth failed attempt, ±20 % jitter so many failed deliveries do not return in
// step; after the last one the delivery is marked failed (about 2 days after the first).

export const RETRY_DELAYS_MS: readonly number[] = [
  2_000, // 2 s
  10_000, // 10 s
  60_000, // 1 min
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  6 * 3_600_000, // 6 h
  12 * 3_600_000, // 12 h
  24 * 3_600_000, // 24 h
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A Retry-After longer than this is capped: a receiver cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
const JITTER = 0.2;

/** What an answer with this status means for its delivery (classify-attempt.ts reads the rest of the answer). */
export function classifyStatus(status: number, retryAfter: string | undefined, now: number): RetryDecision {
  if (status >= 200 && status < 300) return { kind: 'success' };
  if (status === 429 || status === 408 || status >= 500)
    return { kind: 'retry', retryAfterMs: parseRetryAfter(retryAfter, now) };
  return { kind: 'fail', disable: status === 410 };
}

/** What an attempt's outcome means for its delivery. */
export function retryDecisionOf(outcome: AttemptOutcome): RetryDecision {
  switch (outcome.kind) {
    case 'delivered':
      return { kind: 'success' };
    case 'http_failure':
      return outcome.retry;
    case 'refused':
      // A URL refused as registered stays refused until it is changed; a host may resolve elsewhere later.
      return outcome.code === 'URL_HOST_NOT_PUBLIC'
        ? { kind: 'retry', retryAfterMs: null }
        : { kind: 'fail', disable: false };
    case 'network':
    case 'timeout':
      return { kind: 'retry', retryAfterMs: null };
    case 'redirect':
    case 'no_webhook':
      return { kind: 'fail', disable: false };
  }
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/**
 * Delay before the next attempt, or null when `attemptsMade` attempts were the last allowed.
 * A Retry-After can only lengthen the wait: the schedule's own delay is the minimum, so a
 * receiver answering `Retry-After: 0` cannot spend the whole two-day schedule in a moment.
 */
export function nextDelayMs(
  attemptsMade: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[Math.min(attemptsMade, RETRY_DELAYS_MS.length) - 1]!;
  const scheduled = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === null ? scheduled : Math.max(scheduled, retryAfterMs);
}
