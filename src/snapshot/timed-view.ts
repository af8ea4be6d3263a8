// The build as served at an instant. A build holds every published article with its window
// (publishedAt, expiresAt: src/schedule/windows.ts); what the API, the admin and MCP see at time
// t leaves out those not live at t, from the list, `total`, filtered pages and lookups by slug,
// and says until when the answer holds (`changesAt`, `Body.until`) so caches never outlive a
// go-live or an expiry. An article's `related` names only articles live at t (served-related.ts),
// and only images that articles live at t use are served publicly. The view changes at those
// instants with no rebuild. A site with nothing scheduled is its snapshot, as loaded, at no cost.
import { hashBytes } from '../export/content-hash.ts';
import type { Body, Draft, SnapshotReader, Snapshot, SiteContent } from './snapshot-reader.ts';
import { createFilteredList } from './filtered-list.ts';
import { listBody, listItemSpans, splitListItems } from '../export/list-body.ts';
import { makeListIndex } from '../export/list-index.ts';
import type { ManifestArticle, ManifestSite } from '../export/manifest.ts';
import { previewAt } from './preview-view.ts';
import { relatedChangesAt, withLiveRelated, type RelatedWindows } from './served-related.ts';
import { changeTimes, isLiveAt, nextChangeAfter, type ArticleWindow } from '../schedule/windows.ts';

/** A site's content as served at one instant. */
export interface TimedSiteContent extends SiteContent {
  /** The next instant at which this site's answers change (a go-live or an expiry); null: none ahead. */
  changesAt: number | null;
  /**
   * Public images that only articles with an expiry use, by hashed name: the last of those
   * expiries, when the image may stop being served (no cache may keep it past that). Absent: none.
   */
  imagesUntil?: ReadonlyMap<string, number>;
}

export interface TimedSnapshot extends Snapshot {
  sites: Map<string, TimedSiteContent>;
  /** When this view was made. */
  at: number;
  /** When it stops being true: the soonest `changesAt` of its sites. */
  validUntil: number | null;
}

/** An article body that is served until an instant (its expiresAt). */
export interface ExpiringBody extends Body {
  until?: number;
}

/** The snapshot as served at `nowMs`. */
export function viewAt(snapshot: Snapshot, nowMs: number): TimedSnapshot {
  const sites = new Map<string, TimedSiteContent>();
  let validUntil: number | null = null;
  for (const [id, site] of snapshot.sites) {
    const m = snapshot.manifest.sites[id];
    const view = m ? siteAt(site, m, nowMs) : { ...site, changesAt: null };
    if (view.changesAt !== null && (validUntil === null || view.changesAt < validUntil)) validUntil = view.changesAt;
    sites.set(id, view);
  }
  return { ...snapshot, sites, at: nowMs, validUntil };
}

function siteAt(site: SiteContent, m: ManifestSite, nowMs: number): TimedSiteContent {
  const entries = Object.entries(m.articles);
  const changesAt = nextChangeAfter(
    changeTimes(
      entries.map(([, e]) => e),
      nowMs,
    ),
    nowMs,
  );
  const hidden = new Set(entries.filter(([, e]) => !isLiveAt(e, nowMs)).map(([slug]) => slug));
  // Live articles served otherwise than built: until an expiry, or with a `related` that names an
  // article not live now or one that goes live or expires later (served-related.ts).
  const relatedTimed = (e: ManifestArticle) =>
    !!e.related && (e.related.some((r) => hidden.has(r)) || relatedChangesAt(e, m.articles, nowMs) !== null);
  const timed = entries.filter(([slug, e]) => !hidden.has(slug) && (e.expiresAt || relatedTimed(e)));
  if (!hidden.size && !timed.length) return { ...site, changesAt };

  const articles = new Map<string, ExpiringBody>();
  for (const [slug, body] of site.articles) if (!hidden.has(slug)) articles.set(slug, body);
  for (const [slug, e] of timed) {
    const body = site.articles.get(slug); // absent where bodies are read per request (the edge)
    if (body) articles.set(slug, servedOnRead(body, e, nowMs, m.articles));
  }
  const imagesUntil = expiringImages(m, hidden);
  if (!hidden.size) return { ...site, articles, changesAt, imagesUntil };

  // The list without the hidden items: their bytes cut from the build's list (never re-serialized),
  // and its index made as the build makes it.
  const itemBytes = splitListItems(site.list.bytes);
  if (!itemBytes) throw new Error(`the list of site "${site.id}" is not one a build wrote`);
  const kept = site.items.filter((i) => !hidden.has(i.item.slug));
  const bytes = kept.map((i) => itemBytes.get(i.item.slug)!);
  const list = listBody(site.summary, bytes);
  const listHash = hashBytes(list);
  const index = makeListIndex(
    listHash,
    kept.map((i) => ({ kind: i.kind, updatedAt: i.item.updatedAt })),
    listItemSpans(site.summary, bytes),
  );
  return {
    ...site,
    list: { bytes: list, etag: `"${listHash}"` },
    items: kept,
    filtered: createFilteredList(index, list),
    articles,
    images: liveImages(m, hidden),
    changesAt,
    imagesUntil,
  };
}

/** The images that only live articles with an expiry use, each with the last of those expiries. */
function expiringImages(m: ManifestSite, hidden: ReadonlySet<string>): ReadonlyMap<string, number> {
  const until = new Map<string, number>();
  const forGood = new Set<string>();
  for (const [slug, e] of Object.entries(m.articles)) {
    if (hidden.has(slug)) continue;
    for (const sitePath of e.images) {
      const name = m.images[sitePath];
      if (!name || forGood.has(name)) continue;
      if (!e.expiresAt) {
        forGood.add(name);
        until.delete(name);
      } else until.set(name, Math.max(until.get(name) ?? -Infinity, Date.parse(e.expiresAt)));
    }
  }
  return until;
}

/** The hashed names of the images that articles live now use: one only others use is not served yet (or no more). */
function liveImages(m: ManifestSite, hidden: ReadonlySet<string>): ReadonlySet<string> {
  const names = new Set<string>();
  for (const [slug, e] of Object.entries(m.articles)) {
    if (hidden.has(slug)) continue;
    for (const sitePath of e.images) {
      const name = m.images[sitePath];
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * An article's body as served at `nowMs` by its manifest entry (`articles`: the site's entries):
 * null when it is not live then; its `related` cut to the articles live then; with its `until`
 * when its answer changes (its expiry, or a go-live or expiry of an article it names). What
 * siteAt does for every body of a site, for one.
 */
export function servedBody(
  body: Body,
  entry: ArticleWindow & Pick<ManifestArticle, 'related'>,
  nowMs: number,
  articles: RelatedWindows,
): ExpiringBody | null {
  if (!isLiveAt(entry, nowMs)) return null;
  const served = withLiveRelated(body, entry, articles, nowMs);
  const until = untilOf(entry, nowMs, articles);
  return until === null ? served : { ...served, until };
}

/** When the answer of a live article changes: its expiry, or a go-live or expiry of one its `related` names; null: none ahead. */
function untilOf(
  entry: ArticleWindow & Pick<ManifestArticle, 'related'>,
  nowMs: number,
  articles: RelatedWindows,
): number | null {
  const changes = [
    entry.expiresAt ? Date.parse(entry.expiresAt) : null,
    relatedChangesAt(entry, articles, nowMs),
  ].filter((t) => t !== null);
  return changes.length ? Math.min(...changes) : null;
}

/**
 * servedBody of a live article, its `related` cut when first read (bytes, ETag or variants), then
 * kept: a view is made again at every go-live or expiry of any site, and cutting every body that
 * names an article not live (a parse and a write of each) would stall the server each time for
 * answers few of which are asked before the next change.
 */
function servedOnRead(
  body: Body,
  entry: ArticleWindow & Pick<ManifestArticle, 'related'>,
  nowMs: number,
  articles: RelatedWindows,
): ExpiringBody {
  let cut: Body | undefined;
  const served = () => (cut ??= withLiveRelated(body, entry, articles, nowMs));
  const until = untilOf(entry, nowMs, articles);
  return {
    get bytes() {
      return served().bytes;
    },
    get etag() {
      return served().etag;
    },
    get encoded() {
      return served().encoded;
    },
    ...(until === null ? {} : { until }),
  };
}

/**
 * A reader serving `view` as it was made (by a timedReader the caller keeps, e.g. the edge's
 * per-site cache), which the app takes as it is instead of making the view again. Preview is
 * not served through it: it has no drafts.
 */
export function servedAs(view: TimedSnapshot, inner: SnapshotReader): ServedReader {
  const reader: ServedReader & Record<typeof SERVED, true> = {
    [SERVED]: true,
    current: () => view,
    readImage: (siteId, name) =>
      isServedImage(view, siteId, name) ? inner.readImage(siteId, name) : Promise.resolve(null),
    readPreviewImage: async () => null,
    readDrafts: (snapshot, siteId) => inner.readDrafts(snapshot, siteId),
    preview: async () => null,
  };
  return reader;
}

/** Whether `view` serves the image publicly: one that an article live at its instant uses. */
const isServedImage = (view: TimedSnapshot | null, siteId: string, name: string): boolean =>
  view?.sites.get(siteId)?.images.has(name) ?? false;

/** A reader serving the view at the clock's now; its preview of a site shows drafts too. */
export interface ServedReader extends SnapshotReader {
  current(): TimedSnapshot | null;
  /** An image that an article live now uses (SnapshotReader.readImage, for anyone); null for others. */
  readImage(siteId: string, name: string): Promise<Uint8Array | null>;
  /** Any image of the build's site, drafts' and scheduled articles' too: for the site's preview key only. */
  readPreviewImage(siteId: string, name: string): Promise<Uint8Array | null>;
  /**
   * What a preview key sees of `siteId` now (drafts and scheduled articles, with their status),
   * or null when the site is not in the build. Made on first use per build and schedule change.
   */
  preview(siteId: string): Promise<SiteContent | null>;
}

const SERVED = Symbol('served-reader');

/**
 * A reader whose snapshot is the view at the clock's now: made again when the build changes or
 * the clock passes the view's validUntil (or goes back before it was made). A reader that is
 * already one is returned as it is.
 */
export function timedReader(inner: SnapshotReader, clock: () => number = Date.now): ServedReader {
  if ((inner as Partial<Record<typeof SERVED, true>>)[SERVED]) return inner as ServedReader;
  let base: Snapshot | null = null;
  let view: TimedSnapshot | null = null;
  // Per site: the drafts' files of `base` (read once per build) and the preview made from them.
  let drafts = new Map<string, Promise<ReadonlyMap<string, Draft>>>();
  let previews = new Map<string, { at: number; content: SiteContent }>();
  const reader: ServedReader & Record<typeof SERVED, true> = {
    [SERVED]: true,
    current() {
      const snapshot = inner.current();
      if (!snapshot) return (view = null);
      const now = clock();
      if (snapshot !== base || !view || now < view.at || (view.validUntil !== null && now >= view.validUntil)) {
        if (snapshot !== base) drafts = new Map();
        base = snapshot;
        view = viewAt(snapshot, now);
        previews = new Map();
      }
      return view;
    },
    readImage: (siteId, name) =>
      isServedImage(reader.current(), siteId, name) ? inner.readImage(siteId, name) : Promise.resolve(null),
    readPreviewImage: (siteId, name) => inner.readImage(siteId, name),
    readDrafts: (snapshot, siteId) => inner.readDrafts(snapshot, siteId),
    async preview(siteId) {
      const served = reader.current();
      const snapshot = base;
      const site = snapshot?.sites.get(siteId);
      const m = snapshot?.manifest.sites[siteId];
      if (!served || !snapshot || !site || !m) return null;
      const made = previews.get(siteId);
      if (made && made.at === served.at) return made.content;
      let files = drafts.get(siteId);
      if (!files) {
        files = inner.readDrafts(snapshot, siteId);
        files.catch(() => drafts.delete(siteId)); // read again next time
        drafts.set(siteId, files);
      }
      const content = previewAt(site, m, await files, served.at);
      if (base === snapshot && view === served) previews.set(siteId, { at: served.at, content });
      return content;
    },
  };
  return reader;
}
