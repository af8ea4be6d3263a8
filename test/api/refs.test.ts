// A ref (`?ref=<branch>` or `Quire-Ref: <branch>`) on a real API server over two real builds: the
// served one and a branch's preview. Only a site's preview key reads a branch, never cached; a
// site key is refused whatever the branch (it learns nothing of which exist); an unknown or
// malformed ref is 404, and one named twice is 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { buildExport } from '../../src/compile/build.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { timedReader } from '../../src/snapshot/timed-view.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let main: TempProject;
let branch: TempProject;
let server: RunningServer;
let url: string;
const keyring = createKeyring(TEST_SECRET, { generationOf: () => 1 });

async function build(p: TempProject): Promise<void> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  expect(result.ok).toBe(true);
}

beforeAll(async () => {
  main = createTempProject();
  writeSite(main, 'one');
  writeSite(main, 'two');
  main.write('one/articles/live.md', article({ title: 'Live', status: 'published' }, 'As published.\n'));
  main.write('two/articles/elsewhere.md', article({ title: 'Elsewhere', status: 'published' }));
  await build(main);
  branch = createTempProject();
  writeSite(branch, 'one');
  writeSite(branch, 'three');
  branch.write('three/articles/hello.md', article({ title: 'Hello', status: 'draft' }));
  branch.write('one/images/plan.png', 'an image only the branch has');
  branch.write('one/articles/live.md', article({ title: 'Live', status: 'published' }, 'As on the branch.\n'));
  branch.write(
    'one/articles/plan.md',
    article({ title: 'Plan', status: 'published', image: 'plan.png' }, 'The branch adds it.\n'),
  );
  await build(branch);
  const served = openLocalSnapshot(main.distDir, main.stateDir);
  served.reload();
  const preview = openLocalSnapshot(branch.distDir, branch.stateDir);
  preview.reload();
  const branchReader = timedReader(preview);
  const app = createApiApp({
    store: served,
    keyring,
    publicUrl: 'http://127.0.0.1',
    refs: { reader: (ref) => (ref === 'content/spring' ? branchReader : null) },
  });
  server = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${server.port}`;
}, 60_000);
afterAll(async () => {
  await server?.close();
  main?.cleanup();
  branch?.cleanup();
});

const get = (route: string, key: string | null, headers: Record<string, string> = {}) =>
  fetch(`${url}${route}`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
const preview = keyring.previewKeyFor('one');

describe('a ref on the Content API', () => {
  it("gives a preview key the branch's articles, by query or by header, never cached", async () => {
    for (const res of [
      await get('/v1/articles?ref=content/spring', preview),
      await get('/v1/articles', preview, { 'quire-ref': 'content/spring' }),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const body = (await res.json()) as { articles: { slug: string; status: string }[] };
      expect(body.articles.map((a) => [a.slug, a.status]).sort()).toEqual([
        ['live', 'published'],
        ['plan', 'published'],
      ]);
    }
    const live = await get('/v1/articles/live?ref=content%2Fspring', preview);
    expect(((await live.json()) as { html: string }).html).toContain('As on the branch.');
    // Without the ref: the build served.
    const served = (await (await get('/v1/articles/live', preview)).json()) as { html: string };
    expect(served.html).toContain('As published.');
    expect((await get('/v1/articles/plan', preview)).status).toBe(404);
  });

  it('refuses a site key with any ref, before looking the branch up', async () => {
    const key = keyring.keyFor('one');
    const known = await get('/v1/articles?ref=content/spring', key);
    const unknown = await get('/v1/articles?ref=content/autumn', key);
    expect([known.status, unknown.status]).toEqual([403, 403]);
    const [a, b] = [await known.text(), await unknown.text()];
    expect(a).toBe(b); // the same answer: which branches exist is not told
    expect(JSON.parse(a).error.code).toBe('REF_PREVIEW_KEY_ONLY');
    expect(known.headers.get('cache-control')).toBe('no-store');
    expect(await codeOf(await get('/v1/changes?ref=content/spring', key))).toBe('REF_PREVIEW_KEY_ONLY');
    // Without a ref the site key reads what is published, as ever.
    expect((await get('/v1/articles', key)).status).toBe(200);
  });

  it('answers 404 REF_NOT_FOUND for a branch not previewed, a ref that is no branch name, or a site the branch lacks', async () => {
    for (const ref of ['content/autumn', '../../etc/passwd', 'x'.repeat(201), 'a b', '']) {
      const res = await get(`/v1/articles?ref=${encodeURIComponent(ref)}`, preview);
      expect([ref, res.status, await codeOf(res)]).toEqual([ref, 404, 'REF_NOT_FOUND']);
    }
    const other = await get('/v1/articles?ref=content/spring', keyring.previewKeyFor('two'));
    expect([other.status, await codeOf(other)]).toEqual([404, 'REF_NOT_FOUND']);
  });

  it("reads a site only the branch has, with that site's preview key and the ref only", async () => {
    const added = await get('/v1/articles/hello?ref=content/spring', keyring.previewKeyFor('three'));
    expect(added.status).toBe(200);
    expect((await get('/v1/articles/hello', keyring.previewKeyFor('three'))).status).toBe(401);
    expect(await codeOf(await get('/v1/articles?ref=content/spring', keyring.keyFor('three')))).toBe(
      'REF_PREVIEW_KEY_ONLY',
    );
  });

  it('refuses a ref named twice, or two different ways; and asks for a key first', async () => {
    const twice = await get('/v1/articles?ref=content/spring&ref=main', preview);
    expect([twice.status, await codeOf(twice)]).toEqual([400, 'QUERY_INVALID']);
    const differ = await get('/v1/articles?ref=content/spring', preview, { 'quire-ref': 'main' });
    expect([differ.status, await codeOf(differ)]).toEqual([400, 'QUERY_INVALID']);
    const same = await get('/v1/articles?ref=content/spring', preview, { 'quire-ref': 'content/spring' });
    expect(same.status).toBe(200);
    expect(await codeOf(await get('/v1/articles?ref=content/spring', null))).toBe('API_KEY_MISSING');
    expect(await codeOf(await get('/v1/articles?ref=content/spring', 'pv_one.forged'))).toBe('API_KEY_INVALID');
  });

  it("serves a branch's images to the site's preview key with the ref only", async () => {
    const plan = (await (await get('/v1/articles/plan?ref=content/spring', preview)).json()) as { imageUrl: string };
    const image = new URL(plan.imageUrl).pathname;
    const res = await get(`${image}?ref=content/spring`, preview);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('an image only the branch has');
    expect((await get(image, preview)).status).toBe(404);
    expect((await get(image, null)).status).toBe(404);
    expect(await codeOf(await get(`${image}?ref=content/spring`, keyring.keyFor('one')))).toBe('REF_PREVIEW_KEY_ONLY');
    expect((await get(`${image}?ref=content/spring`, keyring.previewKeyFor('two'))).status).toBe(404);
    expect(await codeOf(await get(`${image}?ref=content/spring`, null))).toBe('API_KEY_MISSING');
  });

  it('lets a browser send Quire-Ref (the preflight allows it)', async () => {
    const res = await fetch(`${url}/v1/articles`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example.com', 'access-control-request-headers': 'authorization, quire-ref' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('Quire-Ref');
  });
});
