// The edge Worker's handler over a real deployed export (Miniflare's R2 bucket, `quire deploy`'s
// code), with a clock the test moves: a live article's `related` names a scheduled one only from
// its go-live, with a new ETag then; an image only a scheduled article uses is not served before
// it; images only drafts use are never exported. (Under workerd, with the real clock:
// site-view-cache.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Miniflare } from 'miniflare';
import { buildExport } from '../../src/compile/build.ts';
import { deploy, edgeKeyGenerations } from '../../src/deploy/deploy.ts';
import { planExport } from '../../src/deploy/export-plan.ts';
import { openR2Store, type R2BucketLike } from '../../src/deploy/r2-object-store.ts';
import { readManifest } from '../../src/export/export-files.ts';
import type { ManifestSite } from '../../src/export/manifest.ts';
import { previewRootOf } from '../../src/config/state-layout.ts';
import { readPreviewManifest } from '../../src/export/preview-trees.ts';
import { createEdgeHandler } from '../../src/edge/edge-handler.ts';
import { createExportReader, type ExportBucket } from '../../src/edge/export-reader.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const PUBLIC_URL = 'https://api.example.com';
const GO_LIVE = Date.parse('2099-01-01T00:00:00Z');
const keys = createKeyring(TEST_SECRET, { generationOf: () => 1 });
let now = GO_LIVE - 60_000;
let p: TempProject;
let mf: Miniflare;
let site: ManifestSite;
let draftImages: Record<string, string>;
let handler: ReturnType<typeof createEdgeHandler>;
let bucket: ExportBucket & R2BucketLike;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  for (const name of ['launch', 'draft-only']) p.write(`one/images/${name}.png`, `bytes of ${name}`);
  p.write(
    'one/articles/live.md',
    article({ title: 'Live', status: 'published', publishedAt: '2026-01-01', related: '[launch, other]' }),
  );
  p.write('one/articles/other.md', article({ title: 'Other', status: 'published', publishedAt: '2026-01-02' }));
  p.write(
    'one/articles/launch.md',
    article({ title: 'Secret launch', status: 'published', publishedAt: '2099-01-01T00:00:00Z', image: 'launch.png' }),
  );
  p.write('one/articles/wip.md', article({ title: 'Work in progress', image: 'draft-only.png' }));
  expect(
    (await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: PUBLIC_URL }))
      .ok,
  ).toBe(true);
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } };',
    r2Buckets: ['EXPORT'],
  });
  bucket = (await mf.getR2Bucket('EXPORT')) as unknown as ExportBucket & R2BucketLike;
  const manifest = readManifest(p.distDir)!;
  site = manifest.sites.one!;
  draftImages = readPreviewManifest(previewRootOf(p.stateDir), manifest.buildId)!.sites.one!.images;
  await deploy({
    store: openR2Store(bucket, 'test'),
    plan: planExport(p.distDir, manifest),
    keyGenerations: edgeKeyGenerations(manifest, null),
  });
  handler = createEdgeHandler({
    bucket,
    secret: TEST_SECRET,
    prefix: '',
    publicUrl: PUBLIC_URL,
    pointerTtlMs: 3_600_000,
    clock: () => now,
  });
}, 60_000);
afterAll(async () => {
  await mf?.dispose();
  p?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  handler.fetch(
    new Request(`${PUBLIC_URL}${path}`, { headers: { authorization: `Bearer ${keys.keyFor('one')}`, ...headers } }),
  );

describe('at the edge, before and after a go-live', () => {
  it('`related` names a scheduled article only from its go-live, with a new ETag then', async () => {
    now = GO_LIVE - 60_000;
    const before = await get('/v1/articles/live', { 'accept-encoding': 'br, gzip' });
    expect(before.status).toBe(200);
    expect(before.headers.get('content-encoding')).toBeNull(); // made at request time: identity
    const text = await before.text();
    expect(text).not.toContain('launch');
    expect(JSON.parse(text).related).toEqual([{ slug: 'other', title: 'Other' }]);
    expect(Number(/max-age=(\d+)/.exec(before.headers.get('cache-control')!)![1])).toBeLessThanOrEqual(60);

    now = GO_LIVE;
    const after = await get('/v1/articles/live', {
      'if-none-match': before.headers.get('etag')!,
      'accept-encoding': 'identity',
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(((await after.json()) as { related: { slug: string }[] }).related.map((r) => r.slug)).toEqual([
      'launch',
      'other',
    ]);
  });

  it('an image only a scheduled article uses is served from its go-live; one only a draft uses, never', async () => {
    now = GO_LIVE - 60_000;
    const launch = `/assets/one/${site.images['images/launch.png']}`;
    expect((await get(launch)).status).toBe(404);
    expect((await get(launch, { authorization: `Bearer ${keys.previewKeyFor('one')}` })).status).toBe(404); // no previews at the edge
    now = GO_LIVE;
    const live = await get(launch);
    expect(live.status).toBe(200);
    expect(await live.text()).toBe('bytes of launch');
    expect((await get(`/assets/one/${draftImages['images/draft-only.png']}`)).status).toBe(404);
  });

  it('a body cut for a view is made once for it, not again on each request', async () => {
    now = GO_LIVE - 60_000;
    const reader = createExportReader({ bucket, prefix: '', pointerTtlMs: 3_600_000, clock: () => now });
    const pointer = (await reader.pointer())!;
    const served = async () =>
      (await reader.readerFor(pointer, { siteId: 'one', slug: 'live' }))
        .current()!
        .sites.get('one')!
        .articles.get('live')!;
    const first = await served();
    expect(new TextDecoder().decode(first.bytes)).not.toContain('launch');
    // A parse and a write of the whole body per request, before: the same bytes, made again.
    expect((await served()).bytes).toBe(first.bytes);
    now = GO_LIVE;
    expect(new TextDecoder().decode((await served()).bytes)).toContain('launch');
  });
});
