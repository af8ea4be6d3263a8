// Durations as people write them in settings and options: `24h`, `90m`, `7d`, `30s`, or a bare
// number of seconds.

/** `24h`, `90m`, `7d`, `3600s` (or a bare number of seconds) → milliseconds; null when not one. */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
