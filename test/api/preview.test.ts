// Preview keys on a real API server over a real build: drafts and scheduled articles with their
// status, draft-only images served to them, and public keys seeing none of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let api: TestApi;
beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  p.write('one/images/cover.png', 'draft-only-cover');
  p.write('one/articles/live.md', article({ title: 'Live', status: 'published', publishedAt: '2026-01-01' }));
  p.write(
    'one/articles/later.md',
    article({
      title: 'Later',
      status: 'published',
      publishedAt: '2099-01-01T00:00:00Z',
      expiresAt: '2099-02-01T00:00:00Z',
    }),
  );
  p.write(
    'one/articles/draft.md',
    article({ title: 'Draft', image: 'cover.png' }, 'Secret words.\n\n![c](../images/cover.png)\n'),
  );
  p.write('two/articles/other.md', article({ title: 'Other draft' }));
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
  api = await startTestApi(p);
}, 60_000);
afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

const get = (path: string, key: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

describe('preview keys', () => {
  it('see drafts and scheduled articles, marked, newest first, never cacheable', async () => {
    const res = await get('/v1/articles', api.keyring.previewKeyFor('one'));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    const body = (await res.json()) as {
      total: number;
      articles: { slug: string; status: string; expiresAt?: string }[];
    };
    expect(body.total).toBe(3);
    expect(body.articles.map((a) => [a.slug, a.status, a.expiresAt])).toEqual([
      ['later', 'scheduled', '2099-02-01T00:00:00Z'],
      ['live', 'published', undefined],
      ['draft', 'draft', undefined],
    ]);
    const paged = (await (await get('/v1/articles?limit=1&offset=2', api.keyring.previewKeyFor('one'))).json()) as {
      total: number;
      articles: { slug: string }[];
    };
    expect(paged.total).toBe(3);
    expect(paged.articles.map((a) => a.slug)).toEqual(['draft']);
  });

  it('read a draft with its image, which is served to the preview key only and never listed publicly', async () => {
    const res = await get('/v1/articles/draft', api.keyring.previewKeyFor('one'));
    expect(res.status).toBe(200);
    const draft = (await res.json()) as { status: string; html: string; imageUrl: string };
    expect(draft.status).toBe('draft');
    expect(draft.html).toContain('Secret words.');
    const imageUrl = draft.imageUrl.replace('http://127.0.0.1', api.url);
    expect((await fetch(imageUrl)).status).toBe(404);
    const image = await fetch(imageUrl, { headers: { authorization: `Bearer ${api.keyring.previewKeyFor('one')}` } });
    expect(image.status).toBe(200);
    expect(await image.text()).toBe('draft-only-cover');
    // 304 works for previews too.
    const again = await get('/v1/articles/draft', api.keyring.previewKeyFor('one'), {
      'if-none-match': res.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
  });

  it('are for one site only, and a public key sees no draft or scheduled article', async () => {
    expect((await get('/v1/articles/other', api.keyring.previewKeyFor('one'))).status).toBe(404);
    const pub = api.keyring.keyFor('one');
    expect((await get('/v1/articles/draft', pub)).status).toBe(404);
    expect((await get('/v1/articles/later', pub)).status).toBe(404);
    const list = (await (await get('/v1/articles', pub)).json()) as Record<string, unknown> & {
      articles: Record<string, unknown>[];
    };
    expect(list.total).toBe(1);
    expect(list.articles[0]).not.toHaveProperty('status');
    expect((await get('/v1/articles/live', pub)).headers.get('cache-control')).toBe('public, max-age=3600');
    // A forged preview key (the public signature under the preview prefix) is refused.
    expect((await get('/v1/articles', `pv_${pub.slice(3)}`)).status).toBe(401);
  });
});

describe('a draft-only edit', () => {
  it("reaches a running server: the build id changes, dist/ is swapped, and the new build's drafts are read", async () => {
    const q = createTempProject();
    const settings = {
      contentDir: q.contentDir,
      distDir: q.distDir,
      stateDir: q.stateDir,
      publicUrl: 'http://127.0.0.1',
    };
    writeSite(q, 'one');
    q.write('one/articles/live.md', article({ title: 'Live', status: 'published', publishedAt: '2026-01-01' }));
    q.write('one/articles/plan.md', article({ title: 'Plan' }, 'First draft words.\n'));
    expect((await buildExport(settings)).ok).toBe(true);
    const running = await startTestApi(q);
    const stop = running.store.watch(undefined, 50);
    try {
      const draftHtml = async () => {
        const res = await fetch(`${running.url}/v1/articles/plan`, {
          headers: { authorization: `Bearer ${running.keyring.previewKeyFor('one')}` },
        });
        return ((await res.json()) as { html: string }).html;
      };
      expect(await draftHtml()).toContain('First draft words.');
      q.write('one/articles/plan.md', article({ title: 'Plan' }, 'Second draft words.\n'));
      expect((await buildExport(settings)).written).toBe(true);
      for (let i = 0; i < 100 && !(await draftHtml()).includes('Second draft words.'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await draftHtml()).toContain('Second draft words.');
    } finally {
      stop();
      await running.close();
      q.cleanup();
    }
  });
});
