// The change feed for clients: one answer of GET /v1/changes, and every answer from a cursor on
// until caught up. A cursor is the client's bookmark: keep it with your copy of the articles and
// pass it back; when it has expired (410 CURSOR_EXPIRED, thrown as QuireCursorExpiredError),
// start again without one: the first answer is then the whole current state.
import type { ChangeFeed } from '../contract/changes.ts';

export interface ChangesOptions {
  /** The `cursor` of an earlier answer; without it the first answer is the current state. */
  since?: string;
  /** At most this many changes per answer (1–1000; the server's default is 500). */
  limit?: number;
}

/** The query of GET /v1/changes for these options. */
export function changesQuery(options: ChangesOptions): string {
  const params = new URLSearchParams();
  if (options.since !== undefined) params.set('since', options.since);
  if (options.limit !== undefined) params.set('limit', String(options.limit));
  return params.size > 0 ? `?${params}` : '';
}

/**
 * Every answer from `since` on, each with the cursor to resume from, until one says nothing more
 * waits (that last one is yielded too, with no changes or some, so its cursor is never lost).
 */
export async function* followFeed(
  fetchAnswer: (options: ChangesOptions) => Promise<ChangeFeed>,
  options: ChangesOptions,
): AsyncGenerator<ChangeFeed, void, undefined> {
  let since = options.since;
  for (;;) {
    const answer = await fetchAnswer({ ...options, since });
    yield answer;
    if (!answer.more) return;
    since = answer.cursor;
  }
}
