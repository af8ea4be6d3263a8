// What a running server serves, recorded: at each build it loads (its own, one another process
// built and swapped into dist/, a `dev` rebuild) and at each go-live and expiry. The change feed
// gets every change between its state and what the server now serves, so a reader who follows it
// learns what GET /v1/articles already serves, webhook or not; webhooks get the go-lives and
// expiries only (window-changes.ts): content changes are sent by `publish`, which then finds
// nothing new for the feed. Decided from the stored state in one transaction under the publish
// lock, so a change is recorded once, whichever of several servers on one store, a restart or a
// `publish` gets there first. A build older than the one the feed state stands for records
// nothing for the feed: another server or a publish has moved it on, and what the older build
// serves would read as going back.
import { randomBytes } from 'node:crypto';
import type { Snapshot, SiteContent } from '../snapshot/snapshot-reader.ts';
import { splitListItems } from '../export/list-body.ts';
import type { ManifestSite } from '../export/manifest.ts';
import type { ArticleChange, FeedBuild, FeedState, RecordedChange, StateStore } from '../store/state-store.ts';
import { planEvents, type PlannedEvent } from './plan-events.ts';
import { feedBuildOf, servedAt } from './build-payloads.ts';
import { publishingInThisProcess } from './publish.ts';
import { queueWindowEvents } from './window-changes.ts';

/** What a server serves: a build as loaded, and what is needed to tell and send its changes. */
export interface ServedContent {
  /** The build as loaded: every published article with its window (not a timed view). */
  snapshot: Snapshot;
  /** Where the build is on disk: webhook bodies are read from it. */
  distDir: string;
  /** Each site's drafts in the build (its preview tree; a site with none is absent); null: unknown. */
  drafts: ReadonlyMap<string, ReadonlySet<string>> | null;
}

/** What became of one site's change feed. */
export type FeedRecording = { siteId: string } & (
  | { status: 'recorded'; changes: number }
  /** The feed stands for a newer build (`newer`): nothing recorded from this one. */
  | { status: 'older'; newer: FeedBuild }
  /** An article left the build and whether it became a draft or was deleted is unknown (no preview tree): nothing recorded. */
  | { status: 'drafts-unknown' }
);

export type ServedChangesResult =
  | { status: 'done'; events: (PlannedEvent & { siteId: string })[]; feed: FeedRecording[] }
  /** Another publish holds the lock (here or elsewhere): try again shortly. */
  | { status: 'busy' };

export async function recordServedChanges(
  store: StateStore,
  served: ServedContent,
  nowMs: number,
): Promise<ServedChangesResult> {
  if (publishingInThisProcess()) return { status: 'busy' };
  const lock = await store.locks.tryAcquire(
    'publish',
    `served:${process.pid}:${randomBytes(4).toString('hex')}`,
    nowMs,
  );
  if (!lock.acquired) return { status: 'busy' };
  try {
    const { manifest } = served.snapshot;
    const build = feedBuildOf(manifest);
    return await store.transaction(async (tx) => {
      const events: (PlannedEvent & { siteId: string })[] = [];
      const feed: FeedRecording[] = [];
      for (const [siteId, site] of Object.entries(manifest.sites)) {
        const window = await queueWindowEvents(tx, served.distDir, manifest, siteId, nowMs);
        events.push(...window.events.map((e) => ({ siteId, ...e })));
        const state = await tx.published.feedState(siteId);
        const drafts = served.drafts === null ? null : (served.drafts.get(siteId) ?? new Set<string>());
        const changes = feedChangesServed(site, build, drafts, state, nowMs);
        if (changes === 'older') feed.push({ siteId, status: 'older', newer: state!.build! });
        else if (changes === 'drafts-unknown') feed.push({ siteId, status: 'drafts-unknown' });
        else if (changes.length) feed.push({ siteId, status: 'recorded', changes: changes.length });
        // The feed state moves to this build when it records it, changes or not; null: it stays.
        const recorded =
          Array.isArray(changes) && (changes.length || state?.build?.id !== build.id)
            ? withItems(served.snapshot.sites.get(siteId), siteId, changes)
            : null;
        if (recorded === null && !window.sent?.length) continue;
        await tx.published.record(
          siteId,
          window.sent ? window.commit : (state?.commit ?? null),
          recorded ?? [],
          nowMs,
          window.sent,
          recorded ? build : undefined,
        );
      }
      return { status: 'done', events, feed } as const;
    });
  } finally {
    await lock.release();
  }
}

/**
 * The feed changes between a site's feed state (null: nothing recorded yet) and what `build`
 * serves of it at `nowMs`: as `publish` finds them, articles that are not live being withdrawn.
 * 'older': the state stands for a build made after this one. 'drafts-unknown': an article the
 * state has as published is not in the build, and without its drafts a withdrawal cannot be told
 * from a deletion.
 */
export function feedChangesServed(
  site: ManifestSite,
  build: FeedBuild,
  drafts: ReadonlySet<string> | null,
  state: FeedState | null,
  nowMs: number,
): ArticleChange[] | 'older' | 'drafts-unknown' {
  if (state?.build && state.build.id !== build.id && build.builtAt < state.build.builtAt) return 'older';
  if (drafts === null) {
    for (const [slug, a] of state?.articles ?? [])
      if (a.state === 'published' && !Object.hasOwn(site.articles, slug)) return 'drafts-unknown';
  }
  const { current, withdrawn } = servedAt(site, nowMs, drafts ?? []);
  return planEvents(current, withdrawn, state?.articles ?? null, { extraEvents: true }).changes;
}

/** The changes with each published one's list item, from the build's list as loaded (the bytes publish records too). */
function withItems(site: SiteContent | undefined, siteId: string, changes: ArticleChange[]): RecordedChange[] {
  const items = changes.some((c) => c.state === 'published') && site ? splitListItems(site.list.bytes) : null;
  const text = new TextDecoder();
  return changes.map((c) => {
    if (c.state !== 'published') return { ...c, item: null };
    const item = items?.get(c.slug);
    if (!item)
      throw new Error(`the list of site "${siteId}" served has no item for "${c.slug}", which its manifest lists`);
    return { ...c, item: text.decode(item) };
  });
}
