import { describe, expect, it } from 'vitest';
import { changeTimes, isLiveAt, maxAgeUntil, nextChangeAfter, visibilityAt } from '../../src/schedule/windows.ts';

const at = (iso: string) => Date.parse(iso);

describe('article windows', () => {
  const scheduled = { publishedAt: '2026-12-01T09:00:00Z', expiresAt: '2026-12-31T00:00:00Z' };

  it('is scheduled before publishedAt, live from it, expired from expiresAt (each boundary inclusive of its instant)', () => {
    expect(visibilityAt(scheduled, at('2026-12-01T08:59:59.999Z'))).toBe('scheduled');
    expect(visibilityAt(scheduled, at('2026-12-01T09:00:00Z'))).toBe('live');
    expect(visibilityAt(scheduled, at('2026-12-30T23:59:59.999Z'))).toBe('live');
    expect(visibilityAt(scheduled, at('2026-12-31T00:00:00Z'))).toBe('expired');
    expect(isLiveAt({ publishedAt: null }, 0)).toBe(true);
    expect(isLiveAt({ publishedAt: '2020-01-01T00:00:00Z', expiresAt: null }, at('2030-01-01T00:00:00Z'))).toBe(true);
  });

  it('lists only the changes still ahead, and finds the next one', () => {
    const now = at('2026-11-26T00:00:00Z');
    const times = changeTimes(
      [
        scheduled,
        { publishedAt: '2026-01-01T00:00:00Z' },
        { publishedAt: '2026-12-01T09:00:00Z' },
        { publishedAt: null, expiresAt: '2026-11-27T00:00:00Z' },
      ],
      now,
    );
    expect(times).toEqual([at('2026-11-27T00:00:00Z'), at('2026-12-01T09:00:00Z'), at('2026-12-31T00:00:00Z')]);
    expect(nextChangeAfter(times, now)).toBe(at('2026-11-27T00:00:00Z'));
    expect(nextChangeAfter(times, at('2026-11-27T00:00:00Z'))).toBe(at('2026-12-01T09:00:00Z'));
    expect(nextChangeAfter(times, at('2026-12-31T00:00:00Z'))).toBeNull();
    expect(changeTimes([{ publishedAt: '2020-01-01T00:00:00Z' }], now)).toEqual([]);
  });

  it('caps max-age at the next change, and at the cap', () => {
    const now = at('2026-11-26T00:00:00Z');
    expect(maxAgeUntil(null, now, 3600)).toBe(3600);
    expect(maxAgeUntil(now + 90_500, now, 3600)).toBe(90);
    expect(maxAgeUntil(now + 7_200_000, now, 3600)).toBe(3600);
    expect(maxAgeUntil(now - 1, now, 3600)).toBe(0);
  });
});
