// GET /v1/changes: what changed for the key's site since a cursor, oldest first, read from the
// change log the state store keeps of every publish and of what a running server serves (each
// build it loads, each go-live and expiry; webhooks are queued from the same records, so the two
// tell the same story). Without `since`: the state last recorded, every article in it as
// `published`, with the cursor that state stands at. The Content API reads no
// state store itself: the process that has one hands its change log in (ApiDeps.changes).
import { toIsoUtc } from '../content/dates.ts';
import type { SiteContent } from '../snapshot/snapshot-reader.ts';
import { splitListItems } from '../export/list-body.ts';
import { ApiError } from './api-error.ts';
import { decodeCursor, encodeCursor, siteTag } from './change-cursor.ts';
import { oneParam } from './list-query.ts';

const utf8 = new TextDecoder();

/** Changes per answer when `limit` is not given, and the most one answer may carry. */
export const DEFAULT_CHANGES_LIMIT = 500;
export const MAX_CHANGES_LIMIT = 1000;

type Awaitable<T> = T | Promise<T>;
export type FeedChangeType = 'published' | 'updated' | 'withdrawn' | 'deleted';

/** What the feed reads of a state store's change log (the store's ChangeLog is one). */
export interface ChangeHistory {
  storeId(): Awaitable<string>;
  after(
    siteId: string,
    position: number,
    limit: number,
  ): Awaitable<
    | {
        status: 'ok';
        entries: { slug: string; type: FeedChangeType; item: string | null; at: number }[];
        more: boolean;
        position: number;
      }
    | { status: 'expired' }
  >;
  publishedNow(
    siteId: string,
  ): Awaitable<{ articles: { slug: string; item: string | null; at: number }[] | null; position: number }>;
}

interface FeedEntry {
  type: FeedChangeType;
  slug: string;
  at: number;
  item: string | null;
}

/** The answer's body (JSON text): the list items are the build's bytes, never re-serialized. */
export async function answerChanges(
  params: URLSearchParams,
  site: SiteContent,
  history: ChangeHistory,
  now: number,
): Promise<string> {
  const since = oneParam(params, 'since');
  const limitText = oneParam(params, 'limit');
  if (
    limitText !== null &&
    (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_CHANGES_LIMIT)
  ) {
    throw new ApiError('QUERY_INVALID', `\`limit\` must be a whole number from 1 to ${MAX_CHANGES_LIMIT}`);
  }
  const storeId = await history.storeId();
  const cursorAt = (position: number) => encodeCursor({ storeId, siteId: site.id, position });

  if (since === null) {
    const state = await history.publishedNow(site.id);
    return feedBody(currentState(site, state.articles, now), cursorAt(state.position), false);
  }
  const cursor = decodeCursor(since);
  if (!cursor)
    throw new ApiError(
      'CURSOR_INVALID',
      "`since` is not a cursor of this API: pass back an answer's `cursor` as it is, or leave `since` out to start from the current state",
    );
  if (cursor.site !== siteTag(site.id))
    throw new ApiError(
      'CURSOR_INVALID',
      '`since` is a cursor of another site: use it with the key of the site it came from',
    );
  const page =
    cursor.storeId === storeId
      ? await history.after(site.id, cursor.position, limitText === null ? DEFAULT_CHANGES_LIMIT : Number(limitText))
      : ({ status: 'expired' } as const);
  if (page.status === 'expired') {
    throw new ApiError(
      'CURSOR_EXPIRED',
      'this cursor is older than the change history kept (or from a state store started over or restored from a backup): resync from the current state (GET /v1/changes without `since`, or GET /v1/articles) and follow its cursor',
    );
  }
  return feedBody(page.entries, cursorAt(page.position), page.more);
}

/**
 * Every article of the recorded state as `published`, oldest change first. A site with nothing
 * recorded yet has no history: its served list stands for it. An
 * article recorded before the log kept items takes the one it is served with.
 */
function currentState(
  site: SiteContent,
  recorded: { slug: string; item: string | null; at: number }[] | null,
  now: number,
): FeedEntry[] {
  let served: Map<string, Uint8Array> | null = null;
  const servedItems = () => (served ??= splitListItems(site.list.bytes) ?? new Map());
  const text = (bytes: Uint8Array) => utf8.decode(bytes);
  if (recorded === null) {
    // The list is newest first; the feed is oldest first.
    return [...servedItems()]
      .reverse()
      .map(([slug, bytes]) => ({ type: 'published', slug, at: now, item: text(bytes) }));
  }
  return recorded.flatMap((a): FeedEntry[] => {
    const bytes = a.item === null ? servedItems().get(a.slug) : undefined;
    const item = a.item ?? (bytes ? text(bytes) : null);
    return item === null ? [] : [{ type: 'published', slug: a.slug, at: a.at, item }];
  });
}

function feedBody(entries: FeedEntry[], cursor: string, more: boolean): string {
  const changes = entries.map((e) => {
    const slug = JSON.stringify(e.slug);
    const article = e.item !== null && (e.type === 'published' || e.type === 'updated') ? `,"article":${e.item}` : '';
    return `{"type":"${e.type}","slug":${slug},"id":${slug},"at":"${toIsoUtc(new Date(e.at))}"${article}}`;
  });
  return `{"changes":[${changes.join(',')}],"cursor":"${cursor}","more":${more}}`;
}
