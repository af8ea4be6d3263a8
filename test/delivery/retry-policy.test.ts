import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  MAX_ATTEMPTS,
  nextDelayMs,
  parseRetryAfter,
  RETRY_DELAYS_MS,
} from '../../src/delivery/retry-policy.ts';

describe('retry policy', () => {
  it('2xx succeeds; 408, 429 and 5xx retry; 3xx and other 4xx fail; 410 also disables', () => {
    expect(classifyStatus(204, undefined, 0)).toEqual({ kind: 'success' });
    for (const s of [408, 429, 500, 502, 503]) expect(classifyStatus(s, undefined, 0).kind).toBe('retry');
    for (const s of [301, 302, 307, 400, 401, 403, 404, 422])
      expect(classifyStatus(s, undefined, 0)).toEqual({ kind: 'fail', disable: false });
    expect(classifyStatus(410, undefined, 0)).toEqual({ kind: 'fail', disable: true });
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 3_600_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(classifyStatus(429, '7', now)).toEqual({ kind: 'retry', retryAfterMs: 7000 });
  });

  it('backs off exponentially within ±20 % jitter, honours Retry-After, and stops after the last attempt', () => {
    expect(nextDelayMs(1, null, () => 0)).toBe(RETRY_DELAYS_MS[0]! * 0.8);
    expect(nextDelayMs(1, null, () => 1)).toBe(RETRY_DELAYS_MS[0]! * 1.2);
    expect(nextDelayMs(3, null, () => 0.5)).toBe(RETRY_DELAYS_MS[2]);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++)
      expect(RETRY_DELAYS_MS[i]!).toBeGreaterThan(RETRY_DELAYS_MS[i - 1]!);
    expect(nextDelayMs(2, 60_000, () => 0.5)).toBe(60_000); // a longer Retry-After wins
    expect(nextDelayMs(MAX_ATTEMPTS - 1, null, () => 0.5)).not.toBeNull();
    expect(nextDelayMs(MAX_ATTEMPTS, null, () => 0.5)).toBeNull();
  });

  it('a Retry-After shorter than the schedule cannot shorten it: the schedule is the minimum', () => {
    // `Retry-After: 0` on every attempt used to spend the whole two-day schedule at once.
    const minimum = RETRY_DELAYS_MS.reduce((sum, d) => sum + d * 0.8, 0);
    for (const retryAfter of [0, 1, 1000]) {
      let total = 0;
      for (let made = 1; made < MAX_ATTEMPTS; made++) total += nextDelayMs(made, retryAfter, () => 0)!;
      expect(total).toBeGreaterThanOrEqual(minimum);
    }
    expect(nextDelayMs(1, 0, () => 0.5)).toBe(RETRY_DELAYS_MS[0]);
    expect(nextDelayMs(5, parseRetryAfter('0', 0), () => 0.5)).toBe(RETRY_DELAYS_MS[4]);
  });
});
