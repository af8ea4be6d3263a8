// When a published article is served: from its publishedAt (a time still ahead makes it
// scheduled) until its expiresAt (absent: for ever). Builds write every published article with
// its window; whatever serves or announces them (the API's view of dist/, publish, the delivery
// worker, the admin) asks here what holds at an instant, so all of them agree to the millisecond.
// Pure: no clock of its own, no Node built-ins (the edge build reads it too).

export interface ArticleWindow {
  /** UTC ISO date-time; null when unknown (never ahead: served). */
  publishedAt: string | null;
  expiresAt?: string | null;
}

export type Visibility = 'scheduled' | 'live' | 'expired';

export function visibilityAt(article: ArticleWindow, nowMs: number): Visibility {
  if (article.expiresAt && Date.parse(article.expiresAt) <= nowMs) return 'expired';
  if (article.publishedAt && Date.parse(article.publishedAt) > nowMs) return 'scheduled';
  return 'live';
}

export const isLiveAt = (article: ArticleWindow, nowMs: number): boolean => visibilityAt(article, nowMs) === 'live';

/**
 * Every instant after `afterMs` at which one of `articles` opens or closes, ascending, without
 * repeats (a site with no schedule has none, whatever its size).
 */
export function changeTimes(articles: Iterable<ArticleWindow>, afterMs: number): number[] {
  const times = new Set<number>();
  const add = (iso: string | null | undefined) => {
    if (!iso) return;
    const t = Date.parse(iso);
    if (t > afterMs) times.add(t);
  };
  for (const a of articles) {
    add(a.publishedAt);
    add(a.expiresAt);
  }
  return [...times].sort((x, y) => x - y);
}

/** The first of `times` (ascending) after `nowMs`, or null: when what is served next changes. */
export function nextChangeAfter(times: readonly number[], nowMs: number): number | null {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= nowMs) lo = mid + 1;
    else hi = mid;
  }
  return lo < times.length ? times[lo]! : null;
}

/**
 * max-age for an answer that stays true until `changeAt`: never past the change (a cache must
 * not hide a go-live or an expiry), never above `capSeconds`.
 */
export function maxAgeUntil(changeAt: number | null, nowMs: number, capSeconds: number): number {
  if (changeAt === null) return capSeconds;
  return Math.max(0, Math.min(capSeconds, Math.floor((changeAt - nowMs) / 1000)));
}
