// The build as served at an instant: a real build in a temp dir, read back, viewed at chosen
// instants (the clock injected).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { parseBody } from '../../src/snapshot/snapshot-reader.ts';
import { loadLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { timedReader, viewAt, type ExpiringBody } from '../../src/snapshot/timed-view.ts';
import type { Snapshot } from '../../src/snapshot/snapshot-reader.ts';
import { createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let snapshot: Snapshot;
const T0 = Date.parse('2026-11-26T12:00:00Z');
const HOUR = 3_600_000;
const post = (title: string, front: string, kind = 'standard') =>
  `---\ntitle: ${title}\nstatus: published\nkind: ${kind}\n${front}---\nBody of ${title}.\n`;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'plain');
  p.write('one/articles/live.md', post('Live', 'publishedAt: 2026-11-01T00:00:00Z\nupdatedAt: 2026-11-02T00:00:00Z\n'));
  p.write('one/articles/soon.md', post('Soon', 'publishedAt: 2026-11-26T13:00:00Z\n', 'news'));
  p.write(
    'one/articles/ending.md',
    post('Ending', 'publishedAt: 2026-11-10T00:00:00Z\nexpiresAt: 2026-11-26T14:00:00Z\n'),
  );
  p.write('one/articles/draft.md', '---\ntitle: Draft\n---\nNot yet.\n');
  p.write('plain/articles/a.md', post('A', 'publishedAt: 2026-01-01T00:00:00Z\n'));
  expect(
    (await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://x' }))
      .ok,
  ).toBe(true);
  snapshot = loadLocalSnapshot(p.distDir)!;
}, 60_000);
afterAll(() => p?.cleanup());

const listOf = (view: ReturnType<typeof viewAt>, site = 'one') =>
  parseBody(view.sites.get(site)!.list) as { total: number; articles: { slug: string }[] };

describe('the build as served at an instant', () => {
  it('before a go-live: the scheduled article is in no list, total or lookup', () => {
    const view = viewAt(snapshot, T0);
    const site = view.sites.get('one')!;
    expect(listOf(view).articles.map((a) => a.slug)).toEqual(['ending', 'live']);
    expect(listOf(view).total).toBe(2);
    expect(site.articles.has('soon')).toBe(false);
    expect(site.items.map((i) => i.item.slug)).toEqual(['ending', 'live']);
    expect(site.filtered.select({ kind: 'news', updatedSince: null, limit: 10, offset: 0 }).total).toBe(0);
    expect(site.filtered.select({ kind: null, updatedSince: null, limit: 1, offset: 1 }).total).toBe(2);
    expect(site.changesAt).toBe(T0 + HOUR);
    expect(view.validUntil).toBe(T0 + HOUR);
    // The list as served is the list a build of just these two would write, and has its own ETag.
    expect(site.list.etag).not.toBe(snapshot.sites.get('one')!.list.etag);
    expect((site.articles.get('ending') as ExpiringBody).until).toBe(T0 + 2 * HOUR);
    expect((site.articles.get('live') as ExpiringBody).until).toBeUndefined();
  });

  it('from the go-live instant it is served; from the expiry the other is not', () => {
    const live = viewAt(snapshot, T0 + HOUR);
    expect(listOf(live).articles.map((a) => a.slug)).toEqual(['soon', 'ending', 'live']);
    expect(
      live.sites.get('one')!.filtered.select({ kind: 'news', updatedSince: null, limit: 10, offset: 0 }).total,
    ).toBe(1);
    expect(live.sites.get('one')!.changesAt).toBe(T0 + 2 * HOUR);
    const expired = viewAt(snapshot, T0 + 2 * HOUR);
    expect(listOf(expired).articles.map((a) => a.slug)).toEqual(['soon', 'live']);
    expect(expired.sites.get('one')!.articles.has('ending')).toBe(false);
    expect(expired.sites.get('one')!.changesAt).toBeNull();
    // Everything live: the same list bytes as the build wrote for... the live three are not all; the
    // full list has four items (with the expired one), so this list is made, and its ETag is new.
    expect(expired.sites.get('one')!.list.etag).not.toBe(live.sites.get('one')!.list.etag);
  });

  it('a site with nothing scheduled is served exactly as built', () => {
    const view = viewAt(snapshot, T0);
    const plain = view.sites.get('plain')!;
    const built = snapshot.sites.get('plain')!;
    expect(plain.list).toBe(built.list);
    expect(plain.articles).toBe(built.articles);
    expect(plain.changesAt).toBeNull();
  });

  it('the reader makes a new view only when the build changes or the clock passes a change', () => {
    let now = T0;
    const reader = timedReader(
      { current: () => snapshot, readImage: async () => null, readDrafts: async () => new Map() },
      () => now,
    );
    const first = reader.current()!;
    now = T0 + HOUR - 1;
    expect(reader.current()).toBe(first);
    now = T0 + HOUR;
    const second = reader.current()!;
    expect(second).not.toBe(first);
    expect(second.sites.get('one')!.articles.has('soon')).toBe(true);
    now = T0; // a clock set back: the view follows it
    expect(reader.current()!.sites.get('one')!.articles.has('soon')).toBe(false);
  });
});

describe('bodies whose `related` names an article not live', () => {
  let q: TempProject;
  let built: Snapshot;
  beforeAll(async () => {
    q = createTempProject();
    writeSite(q, 'one');
    q.write('one/articles/soon.md', post('Soon', 'publishedAt: 2026-11-26T13:00:00Z\n'));
    for (const slug of ['a', 'b', 'c'])
      q.write(
        `one/articles/${slug}.md`,
        post(slug.toUpperCase(), 'publishedAt: 2026-11-01T00:00:00Z\nrelated: [soon]\n'),
      );
    expect(
      (await buildExport({ contentDir: q.contentDir, distDir: q.distDir, stateDir: q.stateDir, publicUrl: 'http://x' }))
        .ok,
    ).toBe(true);
    built = loadLocalSnapshot(q.distDir)!;
  }, 60_000);
  afterAll(() => q?.cleanup());

  it('are cut when first read, once, not all whenever a view is made', () => {
    // The build's bodies, each counting the reads of its bytes.
    const reads = new Map<string, number>();
    const site = built.sites.get('one')!;
    const articles = new Map(
      [...site.articles].map(([slug, body]) => [
        slug,
        {
          ...body,
          get bytes() {
            reads.set(slug, (reads.get(slug) ?? 0) + 1);
            return body.bytes;
          },
        },
      ]),
    );
    const view = viewAt({ ...built, sites: new Map([['one', { ...site, articles }]]) }, T0);
    // Made at every go-live or expiry of any site: before, it parsed and wrote again all three.
    expect(reads.size).toBe(0);
    const a = view.sites.get('one')!.articles.get('a')! as ExpiringBody;
    expect(a.until).toBe(T0 + HOUR);
    expect((parseBody(a) as { related: unknown[] }).related).toEqual([]);
    expect(a.etag).not.toBe(site.articles.get('a')!.etag);
    expect(a.encoded).toBeUndefined();
    parseBody(a);
    expect([...reads]).toEqual([['a', 1]]);
    // From the go-live, the build's body as it is, with its stored variants.
    const live = viewAt(built, T0 + HOUR)
      .sites.get('one')!
      .articles.get('b')!;
    expect(live.etag).toBe(site.articles.get('b')!.etag);
    expect(live.encoded).toBe(site.articles.get('b')!.encoded);
  });
});
