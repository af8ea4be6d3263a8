// Times as editors read them: UTC, and the same instant in the site's zone (site.yaml `timezone`).
// Intl carries the zone rules, daylight saving included; nothing here reads the machine's zone.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** `2026-12-01 10:00 GMT+1` for Europe/Paris; `2026-12-01 09:00 UTC` for UTC. */
export function formatInZone(ms: number, zone: string): string {
  const parts = Object.fromEntries(
    formatterFor(zone)
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === 'GMT' || parts.timeZoneName === 'GMT+0' ? 'UTC' : parts.timeZoneName;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${offset}`;
}

/** `2026-12-01 09:00:00Z`: UTC to the second, as schedules are kept. */
export function formatUtc(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
}
