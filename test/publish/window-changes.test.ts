// Go-lives and expiries announced at their instant, from the recorded publish state: a real
// build, a real SQLite state store, the clock injected.
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { planEvents } from '../../src/publish/plan-events.ts';
import { servedAt, withListItems } from '../../src/publish/publish.ts';
import { loadLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import type { Manifest } from '../../src/export/manifest.ts';
import { recordServedChanges } from '../../src/publish/served-changes.ts';
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
const post = (front: string) => `---\ntitle: T\nstatus: published\n${front}---\nBody\n`;

async function setup(extraEvents: boolean) {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/now.md', post('publishedAt: 2026-11-01T00:00:00Z\n'));
  p.write('one/articles/soon.md', post('publishedAt: 2026-11-26T12:10:00Z\n'));
  p.write('one/articles/ending.md', post('publishedAt: 2026-11-01T00:00:00Z\nexpiresAt: 2026-11-26T12:20:00Z\n'));
  const build = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  expect(build.ok).toBe(true);
  const manifest = build.manifest!;
  store = openTestStore(p.stateDir, 'server-secret-0123456789abcdef0123456789');
  await store.webhooks.save(
    'one',
    { url: 'https://receiver.example.com/hooks', secret: 'w'.repeat(32), extraEvents },
    T0,
  );
  // The site's last publish, at T0: what `quire publish` would have recorded then.
  const { current, withdrawn } = servedAt(manifest.sites.one!, T0, []);
  expect([...current.keys()].sort()).toEqual(['ending', 'now']);
  await store.published.record(
    'one',
    'abc123',
    withListItems(p.distDir, manifest, 'one', planEvents(current, withdrawn, null, { extraEvents }).changes),
    T0,
  );
  return manifest;
}

/** What a server serving the build does at `nowMs`; nothing else holds the publish lock in these tests: every call runs. */
async function queueWindowChanges(store: StateStore, distDir: string, manifest: Manifest, nowMs: number) {
  const snapshot = loadLocalSnapshot(distDir)!;
  expect(snapshot.buildId).toBe(manifest.buildId);
  const result = await recordServedChanges(store, { snapshot, distDir, drafts: new Map() }, nowMs);
  if (result.status !== 'done') throw new Error('the publish lock was busy');
  return { status: result.status, events: result.events };
}

const queued = async () =>
  (await store!.outbox.list({ siteId: 'one', states: ['pending'] })).map((d) => `${d.slug}:${d.event}`).sort();

describe('go-lives and expiries', () => {
  it('sends `published` once the window opens, once, and records it', async () => {
    const manifest = await setup(false);
    expect(await queueWindowChanges(store!, p.distDir, manifest, T0 + 5 * MIN)).toEqual({ status: 'done', events: [] });
    expect(await queueWindowChanges(store!, p.distDir, manifest, T0 + 10 * MIN)).toEqual({
      status: 'done',
      events: [{ siteId: 'one', slug: 'soon', event: 'published' }],
    });
    expect(await queued()).toEqual(['soon:published']);
    const body = JSON.parse(
      (await store!.outbox.get((await store!.outbox.list({ siteId: 'one' }))[0]!.id))!.body.toString(),
    );
    expect(body).toMatchObject({ event: 'published', article: { slug: 'soon' } });
    // Again (another tick, a restart, a second server): nothing more.
    expect((await queueWindowChanges(store!, p.distDir, manifest, T0 + 11 * MIN)).events).toEqual([]);
    expect((await store!.published.get('one'))!.articles.get('soon')).toMatchObject({ state: 'published' });
    expect((await store!.published.get('one'))!.commit).toBe('abc123'); // the commit published stays
    expect(await queued()).toEqual(['soon:published']);
  });

  it('records an expiry as withdrawn, and sends `unpublished` only to a webhook that opted in', async () => {
    let manifest = await setup(false);
    expect((await queueWindowChanges(store!, p.distDir, manifest, T0 + 20 * MIN)).events).toEqual([
      { siteId: 'one', slug: 'soon', event: 'published' },
    ]);
    expect((await store!.published.get('one'))!.articles.get('ending')).toMatchObject({ state: 'withdrawn' });
    expect(await queued()).toEqual(['soon:published']);
    await store!.close();
    p.cleanup();
    manifest = await setup(true);
    const events = (await queueWindowChanges(store!, p.distDir, manifest, T0 + 25 * MIN)).events;
    expect(events.sort((a, b) => a.slug.localeCompare(b.slug))).toEqual([
      { siteId: 'one', slug: 'ending', event: 'unpublished' },
      { siteId: 'one', slug: 'soon', event: 'published' },
    ]);
    expect(await queued()).toEqual(['ending:unpublished', 'soon:published']);
  });

  it('sends nothing for a site never published: its first `publish` does', async () => {
    const manifest = await setup(false);
    await store!.published.forget('one');
    expect((await queueWindowChanges(store!, p.distDir, manifest, T0 + 30 * MIN)).events).toEqual([]);
    expect(await queued()).toEqual([]);
  });
});
