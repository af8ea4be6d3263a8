// Comparing a sitemap <lastmod> with an article's updatedAt at the lastmod's own precision and
// time zone (W3C Datetime: a date, or a date-time with or without an offset).

export type LastmodVerdict =
  | { status: 'pass'; code: 'LASTMOD_MATCHES' | 'LASTMOD_DATE_ONLY'; message: string }
  | { status: 'warn'; code: 'LASTMOD_NO_TIMEZONE'; message: string }
  | {
      status: 'fail';
      code: 'LASTMOD_STALE' | 'LASTMOD_BUILD_TIME' | 'LASTMOD_MISMATCH' | 'LASTMOD_INVALID';
      message: string;
    };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * @param sitemapLastmods every lastmod of the sitemap, to tell a build-time stamp (most entries
 *   share one recent value) from a stale value (older than the article's update).
 */
export function compareLastmod(
  unsafeLastmod: string,
  updatedAt: string,
  ctx: { now: number; sitemapLastmods: string[] },
): LastmodVerdict {
  const lastmod = unsafeLastmod.trim();
  const updated = Date.parse(updatedAt);
  const day = DATE_ONLY.exec(lastmod);
  if (day) {
    // The article's instant falls on that calendar date in some zone from UTC−12 to UTC+14.
    const start = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) - 14 * 3_600_000;
    const end = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) + 36 * 3_600_000;
    if (updated >= start && updated < end)
      return {
        status: 'pass',
        code: 'LASTMOD_DATE_ONLY',
        message: `lastmod ${lastmod} is a date only; ${updatedAt} falls on that day in some time zone`,
      };
    return olderOrNewer(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])), updated, lastmod, updatedAt, ctx);
  }
  const dt = DATE_TIME.exec(lastmod);
  if (!dt)
    return { status: 'fail', code: 'LASTMOD_INVALID', message: `lastmod "${lastmod}" is not a W3C date or date-time` };
  const zone = dt[7];
  const at = Date.parse(zone ? lastmod.replace(/([+-]\d{2})(\d{2})$/, '$1:$2') : `${lastmod}Z`);
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const precise = dt[6] !== undefined;
  const same = precise ? seconds(at) === seconds(updated) : Math.floor(at / 60_000) === Math.floor(updated / 60_000);
  if (same) {
    return zone
      ? { status: 'pass', code: 'LASTMOD_MATCHES', message: `lastmod ${lastmod} equals updatedAt ${updatedAt}` }
      : {
          status: 'warn',
          code: 'LASTMOD_NO_TIMEZONE',
          message: `lastmod ${lastmod} has no time zone; it matches updatedAt only if read as UTC`,
        };
  }
  return olderOrNewer(at, updated, lastmod, updatedAt, ctx);
}

function olderOrNewer(
  at: number,
  updated: number,
  lastmod: string,
  updatedAt: string,
  ctx: { now: number; sitemapLastmods: string[] },
): LastmodVerdict {
  if (at < updated)
    return {
      status: 'fail',
      code: 'LASTMOD_STALE',
      message: `lastmod ${lastmod} is older than the article's update (${updatedAt}): it was not refreshed on the "updated" event`,
    };
  const shared = ctx.sitemapLastmods.filter((l) => l.trim() === lastmod).length;
  const recent = Math.abs(ctx.now - at) < 24 * 3_600_000;
  if (recent || (shared > 1 && shared >= ctx.sitemapLastmods.length / 2)) {
    return {
      status: 'fail',
      code: 'LASTMOD_BUILD_TIME',
      message: `lastmod ${lastmod} is newer than the article's update (${updatedAt})${shared > 1 ? ` and shared by ${shared} entries` : ''}: it looks like the time the sitemap was generated, not when the article changed`,
    };
  }
  return {
    status: 'fail',
    code: 'LASTMOD_MISMATCH',
    message: `lastmod ${lastmod} is not the article's updatedAt (${updatedAt})`,
  };
}
