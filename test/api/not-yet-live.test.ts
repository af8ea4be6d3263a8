// What a public reader must not see of an article before it is live, on a real API server over a
// real build, with the server's clock moved by the test (no rebuild between instants): a live
// article's `related` names a scheduled one only from its go-live (a new ETag then, never a 304
// on the old one, and no cache past it), and an image only drafts or not-yet-live articles use is
// not served at /assets/ without the site's preview key. Preview keys see both all along.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { previewRootOf } from '../../src/config/state-layout.ts';
import { readPreviewManifest } from '../../src/export/preview-trees.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const GO_LIVE = Date.parse('2099-01-01T00:00:00Z');
const END = Date.parse('2099-02-01T00:00:00Z');
let now = GO_LIVE - 60_000;
let p: TempProject;
let api: TestApi;
let image: (sitePath: string) => string;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  for (const name of ['shared', 'launch', 'draft-only', 'draft-and-live', 'ending'])
    p.write(`one/images/${name}.png`, `bytes of ${name}`);
  p.write(
    'one/articles/live.md',
    article(
      { title: 'Live', status: 'published', publishedAt: '2026-01-01', related: '[launch, other, ending, wip]' },
      '![s](../images/shared.png)\n\n![d](../images/draft-and-live.png)\n',
    ),
  );
  p.write('one/articles/other.md', article({ title: 'Other', status: 'published', publishedAt: '2026-01-02' }));
  p.write(
    'one/articles/launch.md',
    article(
      { title: 'Secret launch', status: 'published', publishedAt: '2099-01-01T00:00:00Z', image: 'launch.png' },
      '![s](../images/shared.png)\n',
    ),
  );
  p.write(
    'one/articles/ending.md',
    article({
      title: 'Ending',
      status: 'published',
      publishedAt: '2026-01-03',
      expiresAt: '2099-02-01T00:00:00Z',
      image: 'ending.png',
    }),
  );
  p.write(
    'one/articles/wip.md',
    article({ title: 'Work in progress', image: 'draft-only.png' }, '![d](../images/draft-and-live.png)\n'),
  );
  p.write('two/articles/hello.md', article({ title: 'Hello', status: 'published', publishedAt: '2026-01-01' }));
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'http://127.0.0.1',
      })
    ).ok,
  ).toBe(true);
  const manifest = readManifest(p.distDir)!;
  const m = manifest.sites.one!;
  const draftImages = readPreviewManifest(previewRootOf(p.stateDir), manifest.buildId)!.sites.one!.images;
  image = (sitePath) => `/assets/one/${m.images[sitePath] ?? draftImages[sitePath]!}`;
  api = await startTestApi(p, {}, () => now);
}, 60_000);
afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

const get = (path: string, key: string | null, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
const relatedOf = async (res: Response) =>
  ((await res.json()) as { related: { slug: string; title: string }[] }).related;
const maxAge = (res: Response) => Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);

describe('a scheduled article named in `related`', () => {
  it('is not named to a public key before its go-live, and is from that instant, with a new ETag', async () => {
    now = GO_LIVE - 60_000;
    const before = await get('/v1/articles/live', api.keyring.keyFor('one'));
    expect(before.status).toBe(200);
    const etag = before.headers.get('etag')!;
    const text = await before.text();
    expect(text).not.toContain('launch');
    expect(text).not.toContain('Secret launch');
    expect(JSON.parse(text).related).toEqual([
      { slug: 'other', title: 'Other' },
      { slug: 'ending', title: 'Ending' },
    ]);
    // Cacheable only until the go-live changes it.
    expect(maxAge(before)).toBeLessThanOrEqual(60);
    // The list never named it either.
    expect(await (await get('/v1/articles', api.keyring.keyFor('one'))).text()).not.toContain('launch');

    now = GO_LIVE;
    const revalidated = await get('/v1/articles/live', api.keyring.keyFor('one'), { 'if-none-match': etag });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get('etag')).not.toBe(etag);
    expect(await relatedOf(revalidated)).toEqual([
      { slug: 'launch', title: 'Secret launch' },
      { slug: 'other', title: 'Other' },
      { slug: 'ending', title: 'Ending' },
    ]);
    // The next change of this answer is the expiry of an article it names.
    expect(maxAge(revalidated)).toBe(3600);

    // Compressed answers are cut the same way.
    now = GO_LIVE - 60_000;
    const gzip = await get('/v1/articles/live', api.keyring.keyFor('one'), { 'accept-encoding': 'gzip' });
    expect(await gzip.text()).not.toContain('launch');
  });

  it('is named until the end of an article it names, then not', async () => {
    now = END - 30_000;
    const ending = await get('/v1/articles/live', api.keyring.keyFor('one'));
    expect(maxAge(ending)).toBeLessThanOrEqual(30);
    expect((await relatedOf(ending)).map((r) => r.slug)).toEqual(['launch', 'other', 'ending']);
    now = END;
    const ended = await get('/v1/articles/live', api.keyring.keyFor('one'), {
      'if-none-match': ending.headers.get('etag')!,
    });
    expect(ended.status).toBe(200);
    expect((await relatedOf(ended)).map((r) => r.slug)).toEqual(['launch', 'other']);
  });

  it('is named to the preview key all along', async () => {
    now = GO_LIVE - 60_000;
    const res = await get('/v1/articles/live', api.keyring.previewKeyFor('one'));
    expect((await relatedOf(res)).map((r) => r.slug)).toEqual(['launch', 'other', 'ending']);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });
});

describe('images of articles not live', () => {
  it('an image only a scheduled article uses is not served before its go-live, then is, with no rebuild', async () => {
    now = GO_LIVE - 60_000;
    expect((await get(image('images/launch.png'), null)).status).toBe(404);
    expect((await get(image('images/launch.png'), api.keyring.keyFor('one'))).status).toBe(404);
    const preview = await get(image('images/launch.png'), api.keyring.previewKeyFor('one'));
    expect(preview.status).toBe(200);
    expect(preview.headers.get('cache-control')).toBe('private, no-store');
    expect(await preview.text()).toBe('bytes of launch');
    // One a live article uses too is public already.
    expect((await get(image('images/shared.png'), null)).status).toBe(200);

    now = GO_LIVE;
    const live = await get(image('images/launch.png'), null);
    expect(live.status).toBe(200);
    expect(live.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await live.text()).toBe('bytes of launch');
  });

  it('an image only a draft uses is served to the site preview key only, by header or `key`', async () => {
    now = GO_LIVE - 60_000;
    const path = image('images/draft-only.png');
    expect((await get(path, null)).status).toBe(404);
    expect((await get(path, api.keyring.keyFor('one'))).status).toBe(404);
    expect((await get(path, api.keyring.previewKeyFor('two'))).status).toBe(404);
    expect((await get(`${path}?key=${api.keyring.keyFor('one')}`, null)).status).toBe(404);
    expect((await get(path, api.keyring.previewKeyFor('one'))).status).toBe(200);
    const byQuery = await get(`${path}?key=${api.keyring.previewKeyFor('one')}`, null);
    expect(byQuery.status).toBe(200);
    expect(await byQuery.text()).toBe('bytes of draft-only');
    // The draft's body names it by the same URL its published image would have.
    const draft = (await (await get('/v1/articles/wip', api.keyring.previewKeyFor('one'))).json()) as {
      imageUrl: string;
    };
    expect(draft.imageUrl).toBe(`http://127.0.0.1${path}`);
    // Used by a live article as well as the draft: public.
    expect((await get(image('images/draft-and-live.png'), null)).status).toBe(200);
  });

  it('an image only an expired article used is withdrawn with it', async () => {
    now = END - 1;
    const ending = await get(image('images/ending.png'), null);
    expect(ending.status).toBe(200);
    // No cache may keep it past the expiry (before: a year, immutable).
    expect(ending.headers.get('cache-control')).toBe('public, max-age=0');
    now = END - 90_000;
    expect((await get(image('images/ending.png'), null)).headers.get('cache-control')).toBe('public, max-age=90');
    // One a live article without an expiry uses too is cached for a year.
    expect((await get(image('images/shared.png'), null)).headers.get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
    now = END - 1;
    now = END;
    expect((await get(image('images/ending.png'), null)).status).toBe(404);
    expect((await get(image('images/ending.png'), api.keyring.previewKeyFor('one'))).status).toBe(200);
  });
});
