// Dates in and out: ISO 8601 in front matter, UTC with second precision in the API.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** UTC, second precision: `2026-03-14T09:30:00Z`. */
export function toIsoUtc(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Accepts a date (`2026-03-14`, read as midnight UTC) or a date-time with an optional offset
 * (none means UTC). YAML 1.1 parsers may already have produced a Date. Returns null when invalid.
 */
export function parseContentDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : toIsoUtc(value);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const dateOnly = ISO_DATE.exec(text);
  if (dateOnly) return validDate(`${text}T00:00:00Z`, dateOnly);
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return null;
  const zone = m[7] ? (m[7].toUpperCase() === 'Z' ? 'Z' : normaliseOffset(m[7])) : 'Z';
  return validDate(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone}`, m);
}

function normaliseOffset(offset: string): string {
  return offset.includes(':') ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
}

function validDate(iso: string, parts: RegExpExecArray): string | null {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  // Reject roll-overs such as 2026-02-30 that Date would quietly accept.
  const [, y, mo, da] = parts.map(Number);
  const check = new Date(Date.UTC(y!, mo! - 1, da!));
  if (check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== da!) return null;
  return toIsoUtc(d);
}
