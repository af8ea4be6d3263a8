// What a server records in the change feed for what it serves: a real build read as a server
// reads it (its drafts from the build's preview tree), the test store (SQLite; PostgreSQL with
// QUIRE_TEST_STORE=postgres), the clock injected.
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import type { Snapshot } from '../../src/snapshot/snapshot-reader.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { recordServedChanges, type FeedRecording } from '../../src/publish/served-changes.ts';
import type { StateStore } from '../../src/store/state-store.ts';
import { openTestStore } from '../helpers/test-store.ts';
import { createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let store: StateStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
  p?.cleanup();
});

const T0 = Date.parse('2026-11-26T12:00:00Z');
const MIN = 60_000;
const post = (title: string, front = 'publishedAt: 2026-11-01T00:00:00Z\n') =>
  `---\ntitle: ${title}\nstatus: published\n${front}---\nBody\n`;
const draft = (title: string) => `---\ntitle: ${title}\nstatus: draft\n---\nBody\n`;

function setup(): void {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', post('A'));
  p.write('one/articles/b.md', post('B'));
  p.write('one/articles/c.md', post('C'));
  p.write('one/articles/d.md', draft('D'));
  store = openTestStore(p.stateDir, 'server-secret-0123456789abcdef0123456789');
}

const reader = () => openLocalSnapshot(p.distDir, p.stateDir);

/** Builds the content as it is now and loads it as a server does. */
async function build(): Promise<Snapshot> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  expect(result.ok).toBe(true);
  const dist = reader();
  expect(dist.reload()).toBe(true);
  return dist.current()!;
}

/** What a server serving `snapshot` records at `nowMs` (its drafts unknown with `drafts: null`); nothing else holds the publish lock here. */
async function serve(snapshot: Snapshot, nowMs = T0, drafts: 'read' | null = 'read'): Promise<FeedRecording[]> {
  const result = await recordServedChanges(
    store!,
    { snapshot, distDir: p.distDir, drafts: drafts && (await reader().draftSlugs(snapshot)) },
    nowMs,
  );
  if (result.status !== 'done') throw new Error('the publish lock was busy');
  return result.feed;
}

/** The site's change log, in order. */
const log = async (): Promise<string[]> => {
  const page = await store!.changes.after('one', 0, 1000);
  if (page.status !== 'ok') throw new Error('the log expired');
  return page.entries.map((e) => `${e.type}:${e.slug}`);
};

describe('what a server serves, in the change feed', () => {
  it("records a site's first build as its state, then what each build it loads changed, once", async () => {
    setup();
    const first = await build();
    expect(await serve(first)).toEqual([{ siteId: 'one', status: 'recorded', changes: 3 }]);
    expect(await log()).toEqual(['published:a', 'published:b', 'published:c']);
    expect(await serve(first, T0 + MIN)).toEqual([]); // again (a restart, another server): nothing
    expect((await store!.published.feedState('one'))!.build).toEqual({
      id: first.buildId,
      builtAt: Date.parse(first.manifest.builtAt),
    });

    p.write('one/articles/a.md', post('A, revised'));
    p.write('one/articles/b.md', draft('B'));
    p.remove('one/articles/c.md');
    p.write('one/articles/d.md', post('D'));
    const second = await build();
    expect(await serve(second, T0 + 2 * MIN)).toEqual([{ siteId: 'one', status: 'recorded', changes: 4 }]);
    expect((await log()).slice(3).sort()).toEqual(['deleted:c', 'published:d', 'updated:a', 'withdrawn:b']);
    const page = await store!.changes.after('one', 3, 10);
    const updated = page.status === 'ok' ? page.entries.find((e) => e.type === 'updated') : undefined;
    expect(JSON.parse(updated!.item!)).toMatchObject({ slug: 'a', title: 'A, revised' });
    expect(await serve(second, T0 + 3 * MIN)).toEqual([]);
    // Nothing for webhooks: content changes are `publish`'s to send, and no site was sent anything.
    expect(await store!.published.get('one')).toBeNull();
    expect(await store!.outbox.list()).toEqual([]);
  });

  it('records nothing from a build older than the one the feed stands for; a newer one, even of older content, is recorded', async () => {
    setup();
    const first = await build();
    await serve(first);
    p.write('one/articles/a.md', post('A, revised'));
    const second = await build();
    await serve(second);
    expect(await log()).toEqual(['published:a', 'published:b', 'published:c', 'updated:a']);

    // Another server still serves the first build (made earlier): at its go-lives, or when it
    // restarts, it must not take the revision back.
    const builtAt = (snapshot: Snapshot, ms: number): Snapshot => ({
      ...snapshot,
      manifest: { ...snapshot.manifest, builtAt: new Date(ms).toISOString() },
    });
    const made = Date.parse(second.manifest.builtAt);
    expect(await serve(builtAt(first, made - MIN), T0 + MIN)).toEqual([
      { siteId: 'one', status: 'older', newer: { id: second.buildId, builtAt: made } },
    ]);
    expect(await log()).toEqual(['published:a', 'published:b', 'published:c', 'updated:a']);
    // Made after it (the content put back, and built again): served now, and recorded.
    expect(await serve(builtAt(first, made + MIN), T0 + 2 * MIN)).toEqual([
      { siteId: 'one', status: 'recorded', changes: 1 },
    ]);
    expect(await log()).toEqual(['published:a', 'published:b', 'published:c', 'updated:a', 'updated:a']);
  });

  it('records a go-live and an expiry at their instants, once', async () => {
    setup();
    p.write('one/articles/soon.md', post('Soon', 'publishedAt: 2026-11-26T12:10:00Z\n'));
    p.write(
      'one/articles/brief.md',
      post('Brief', 'publishedAt: 2026-11-01T00:00:00Z\nexpiresAt: 2026-11-26T12:20:00Z\n'),
    );
    const snapshot = await build();
    await serve(snapshot);
    expect((await log()).sort()).toEqual(['published:a', 'published:b', 'published:brief', 'published:c']);
    expect(await serve(snapshot, T0 + 10 * MIN)).toEqual([{ siteId: 'one', status: 'recorded', changes: 1 }]);
    expect(await serve(snapshot, T0 + 11 * MIN)).toEqual([]);
    expect(await serve(snapshot, T0 + 20 * MIN)).toEqual([{ siteId: 'one', status: 'recorded', changes: 1 }]);
    expect((await log()).slice(4)).toEqual(['published:soon', 'withdrawn:brief']);
  });

  it('records an article that left the build only once its drafts tell a withdrawal from a deletion', async () => {
    setup();
    await serve(await build());
    p.write('one/articles/b.md', draft('B'));
    p.remove('one/articles/c.md');
    const next = await build();
    expect(await serve(next, T0 + MIN, null)).toEqual([{ siteId: 'one', status: 'drafts-unknown' }]);
    expect(await log()).toEqual(['published:a', 'published:b', 'published:c']);
    expect(await serve(next, T0 + 2 * MIN)).toEqual([{ siteId: 'one', status: 'recorded', changes: 2 }]);
    expect((await log()).slice(3).sort()).toEqual(['deleted:c', 'withdrawn:b']);
    // An edit needs no drafts.
    p.write('one/articles/a.md', post('A, revised'));
    expect(await serve(await build(), T0 + 3 * MIN, null)).toEqual([{ siteId: 'one', status: 'recorded', changes: 1 }]);
  });
});
