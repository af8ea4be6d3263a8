// The edge's per-isolate cache of each site's assembled content and timed view
// (src/edge/export-reader.ts): reused across requests, never across sites, made again when the
// clock passes a go-live and when a new build is deployed, bounded. In process over a real R2
// bucket (Miniflare's) with a clock the test moves; then end to end in the Worker under workerd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Miniflare } from 'miniflare';
import { buildExport } from '../../src/compile/build.ts';
import { deploy, edgeKeyGenerations } from '../../src/deploy/deploy.ts';
import { planExport } from '../../src/deploy/export-plan.ts';
import { openR2Store, type R2BucketLike } from '../../src/deploy/r2-object-store.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { createEdgeHandler } from '../../src/edge/edge-handler.ts';
import { createExportReader, type ExportBucket } from '../../src/edge/export-reader.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { startLocalEdge } from '../../src/deploy/local-edge.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { article, type TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites } from '../api/fixture.ts';

const PUBLIC_URL = 'https://api.example.com';
const GO_LIVE = Date.parse('2099-01-01T00:00:00Z');
const keys = createKeyring(TEST_SECRET, { generationOf: () => 1 });

let p: TempProject;
let mf: Miniflare;
let bucket: ExportBucket & R2BucketLike;

const rebuild = async () =>
  expect(
    (await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: PUBLIC_URL }))
      .ok,
  ).toBe(true);
const deployNow = () => {
  const manifest = readManifest(p.distDir)!;
  return deploy({
    store: openR2Store(bucket, 'test'),
    plan: planExport(p.distDir, manifest),
    keyGenerations: edgeKeyGenerations(manifest, null),
  });
};
const slugsOf = (body: Uint8Array): string[] =>
  JSON.parse(new TextDecoder().decode(body)).articles.map((a: { slug: string }) => a.slug);

beforeAll(async () => {
  p = await buildTwoSites(PUBLIC_URL);
  p.write(
    'alpha/articles/coming-soon.md',
    article({ title: 'Coming soon', status: 'published', publishedAt: '2099-01-01T00:00:00Z' }, 'Later.\n'),
  );
  await rebuild();
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } };',
    r2Buckets: ['EXPORT'],
  });
  bucket = (await mf.getR2Bucket('EXPORT')) as unknown as ExportBucket & R2BucketLike;
  await deployNow();
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  p?.cleanup();
});

describe('the edge reader keeps each site and its timed view per build', () => {
  it('reuses a site view across requests, until the clock passes its next go-live', async () => {
    let now = GO_LIVE - 60_000;
    const reader = createExportReader({ bucket, prefix: '', pointerTtlMs: 3_600_000, clock: () => now });
    const pointer = (await reader.pointer())!;
    const read = async (slug: string | null) =>
      (await reader.readerFor(pointer, { siteId: 'alpha', slug })).current()!.sites.get('alpha')!;

    const first = await read('first-steps');
    const second = await read('coming-soon');
    expect(second.filtered).toBe(first.filtered); // the same view, not made again
    expect(second.list).toBe(first.list);
    expect(first.articles.has('first-steps')).toBe(true);
    expect(second.articles.has('coming-soon')).toBe(false); // scheduled: not served yet
    expect(slugsOf(first.list.bytes)).not.toContain('coming-soon');

    now = GO_LIVE; // no deploy, no pointer read: the clock alone
    const live = await read('coming-soon');
    expect(live.filtered).not.toBe(first.filtered);
    expect(live.articles.has('coming-soon')).toBe(true);
    expect(slugsOf(live.list.bytes)).toContain('coming-soon');
    expect((await read('first-steps')).list).toBe(live.list);
  });

  it('never serves one site the view of another, and holds one request to its site', async () => {
    const reader = createExportReader({ bucket, prefix: '', pointerTtlMs: 3_600_000, clock: () => GO_LIVE - 60_000 });
    const pointer = (await reader.pointer())!;
    const alpha = (await reader.readerFor(pointer, { siteId: 'alpha', slug: 'bonjour' })).current()!;
    const beta = (await reader.readerFor(pointer, { siteId: 'beta', slug: 'bonjour' })).current()!;
    expect([...alpha.sites.keys()]).toEqual(['alpha']);
    expect([...beta.sites.keys()]).toEqual(['beta']);
    expect(alpha.sites.get('alpha')!.articles.has('bonjour')).toBe(false); // beta's article, asked through alpha
    expect(beta.sites.get('beta')!.articles.has('bonjour')).toBe(true);
    expect(slugsOf(beta.sites.get('beta')!.list.bytes)).toEqual(['bonjour']);
    expect(Object.keys(beta.manifest.sites)).toEqual(['beta']);
  });

  it.each([{ maxCachedSites: 1 }, { maxCachedSiteBytes: 1 }])(
    'keeps no more sites than it is allowed (%o)',
    async (bound) => {
      const reader = createExportReader({
        bucket,
        prefix: '',
        pointerTtlMs: 3_600_000,
        clock: () => GO_LIVE - 60_000,
        ...bound,
      });
      const pointer = (await reader.pointer())!;
      const alphaView = async () =>
        (await reader.readerFor(pointer, { siteId: 'alpha', slug: null })).current()!.sites.get('alpha')!.filtered;
      const kept = await alphaView();
      expect(await alphaView()).toBe(kept); // the newest site stays, even over the bytes
      await reader.readerFor(pointer, { siteId: 'beta', slug: null }); // beta takes the one place
      expect(await alphaView()).not.toBe(kept);
    },
  );

  it('serves a new build once the pointer is read again, and the old one until then', async () => {
    let now = GO_LIVE - 60_000;
    const handler = createEdgeHandler({
      bucket,
      secret: TEST_SECRET,
      prefix: '',
      publicUrl: PUBLIC_URL,
      pointerTtlMs: 10_000,
      clock: () => now,
    });
    const get = async (slug: string, key = keys.keyFor('alpha')) =>
      handler.fetch(new Request(`${PUBLIC_URL}/v1/articles/${slug}`, { headers: { authorization: `Bearer ${key}` } }));
    const before = await get('second-look');
    expect(before.status).toBe(200);
    const oldBody = await before.text();
    expect((await get('second-look', keys.keyFor('beta'))).status).toBe(404); // the key is checked per request, against its own site

    p.write(
      'alpha/articles/second-look.md',
      article(
        {
          title: 'Second look, revised',
          status: 'published',
          author: 'bob',
          publishedAt: '2026-03-01',
          updatedAt: '2026-03-05T00:00:00Z',
        },
        'Revised body.\n',
      ),
    );
    await rebuild();
    await deployNow();
    now += 9_000; // within the pointer's TTL: still the build it read
    expect(await (await get('second-look')).text()).toBe(oldBody);
    now += 2_000;
    const after = await (await get('second-look')).text();
    expect(after).not.toBe(oldBody);
    expect(after).toContain('Revised body.');
  });
});

describe('the Worker under workerd', () => {
  it('serves a scheduled article (its `related` mention, its image) at its instant without a deploy, whatever the pointer TTL', async () => {
    const q = await buildTwoSites(PUBLIC_URL);
    const at = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    q.write('alpha/images/hour.png', 'bytes of the hour');
    q.write(
      'alpha/articles/at-the-hour.md',
      article(
        { title: 'At the hour', status: 'published', publishedAt: at.toISOString(), image: 'hour.png' },
        'Now.\n',
      ),
    );
    q.write(
      'alpha/articles/see-also.md',
      article(
        { title: 'See also', status: 'published', publishedAt: '2026-01-01', related: '[at-the-hour]' },
        'Also.\n',
      ),
    );
    expect(
      (await buildExport({ contentDir: q.contentDir, distDir: q.distDir, stateDir: q.stateDir, publicUrl: PUBLIC_URL }))
        .ok,
    ).toBe(true);
    const hourImage = `/assets/alpha/${readManifest(q.distDir)!.sites.alpha!.images['images/hour.png']}`;
    const edge = await startLocalEdge({
      distDir: q.distDir,
      stateDir: q.stateDir,
      secret: TEST_SECRET,
      publicUrl: PUBLIC_URL,
      pointerTtlSeconds: 3600,
    });
    try {
      await edge.deploy();
      const get = (path: string) =>
        fetch(`${edge.url}${path}`, {
          headers: { authorization: `Bearer ${keys.keyFor('alpha')}`, 'accept-encoding': 'identity' },
        });
      expect((await get('/v1/articles/at-the-hour')).status).toBe(404);
      const list = await get('/v1/articles');
      expect(slugsOf(new Uint8Array(await list.arrayBuffer()))).not.toContain('at-the-hour');
      expect(Number(/max-age=(\d+)/.exec(list.headers.get('cache-control')!)![1])).toBeLessThanOrEqual(
        Math.ceil((at.getTime() - Date.now()) / 1000) + 1,
      );
      // Nor is it named in another's `related`, nor its image served, before its time.
      expect(await (await get('/v1/articles/see-also')).json()).toMatchObject({ related: [] });
      expect((await get(hourImage)).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at.getTime() - Date.now()) + 200));
      expect((await get('/v1/articles/at-the-hour')).status).toBe(200);
      expect(await (await get('/v1/articles/see-also')).json()).toMatchObject({
        related: [{ slug: 'at-the-hour', title: 'At the hour' }],
      });
      expect((await get(hourImage)).status).toBe(200);
      expect(slugsOf(new Uint8Array(await (await get('/v1/articles')).arrayBuffer()))).toContain('at-the-hour');
    } finally {
      await edge.close();
      q.cleanup();
    }
  }, 60_000);
});
