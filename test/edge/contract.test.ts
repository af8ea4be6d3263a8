// One API contract, two entry points: the Node server over dist/ and the edge Worker under
// workerd (Miniflare) over the same build deployed into its local R2 bucket by the deploy code
// `quire deploy` uses. Every request goes to both; status, body bytes and the headers that
// matter must be the same. Forged, rotated, other-site and missing keys, hostile slugs, paging
// and filters, 304s, the machine-readable documents and a scheduled article included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.ts';
import { buildExport } from '../../src/compile/build.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring, type Keyring } from '../../src/keys/api-keys.ts';
import type { KeyGenerationFile } from '../../src/keys/key-generations.ts';
import { openCheckedKeyGenerations } from '../../src/keys/recorded-generations.ts';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { startLocalEdge, type LocalEdge } from '../../src/deploy/local-edge.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { article, type TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites } from '../api/fixture.ts';

const PUBLIC_URL = 'https://api.example.com';
/** The headers a client or a cache acts on. */
const COMPARED = [
  'content-type',
  'content-encoding',
  'etag',
  'cache-control',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'allow',
  'www-authenticate',
  'retry-after',
  'x-content-type-options',
  'content-security-policy',
];

let p: TempProject;
let node: RunningServer;
let nodeUrl: string;
let edge: LocalEdge;
let keyring: Keyring;
let generations: KeyGenerationFile;
let state: StateStore;

beforeAll(async () => {
  p = await buildTwoSites(PUBLIC_URL);
  // A scheduled article: in the build, served by neither until it goes live.
  p.write(
    'alpha/articles/coming-soon.md',
    article({ title: 'Coming soon', status: 'published', publishedAt: '2099-01-01T00:00:00Z' }, 'Later.\n'),
  );
  // Long enough for the build to store compressed variants of its body.
  p.write(
    'alpha/articles/long-read.md',
    article(
      { title: 'A long read', status: 'published', publishedAt: '2026-02-15T00:00:00Z' },
      `${Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of a long read, with words enough to compress.`).join('\n\n')}\n`,
    ),
  );
  expect(
    (await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: PUBLIC_URL }))
      .ok,
  ).toBe(true);
  state = openStateStore(p.stateDir, TEST_SECRET);
  generations = await openCheckedKeyGenerations(p.stateDir, { records: state.keyGenerations }, ['alpha', 'beta']);
  keyring = createKeyring(TEST_SECRET, generations);
  const store = openLocalSnapshot(p.distDir, p.stateDir);
  store.reload();
  node = await listen(createApiApp({ store, keyring, publicUrl: PUBLIC_URL }), 0, '127.0.0.1');
  nodeUrl = `http://127.0.0.1:${node.port}`;
  edge = await startLocalEdge({ distDir: p.distDir, stateDir: p.stateDir, secret: TEST_SECRET, publicUrl: PUBLIC_URL });
  await edge.deploy();
}, 90_000);

afterAll(async () => {
  await edge?.close();
  await node?.close();
  await state?.close();
  p?.cleanup();
});

interface Answer {
  status: number;
  body: Buffer;
  headers: Record<string, string | null>;
}

async function ask(base: string, path: string, init: RequestInit): Promise<Answer> {
  const res = await fetchOnce(`${base}${path}`, {
    ...init,
    headers: { 'accept-encoding': 'identity', ...(init.headers as Record<string, string>) },
  });
  return {
    status: res.status,
    body: Buffer.from(await res.arrayBuffer()),
    headers: Object.fromEntries(COMPARED.map((h) => [h, res.headers.get(h)])),
  };
}

/**
 * fetch, asked once more when a kept-alive connection was reset under it: on a loaded machine
 * the server may close an idle socket just as the client reuses it (a race of keep-alive, not an
 * answer). Every request here is read-only, so repeating it changes nothing; any other failure,
 * or a second reset, fails the test.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw e;
    return fetch(url, init);
  }
}

/**
 * The same request to both; they must answer alike. Returns the (Node) answer. `decoded`: the
 * bodies are compared once decoded, and neither Content-Encoding nor the coding suffix of the
 * ETag (`"…-br"`) is: at the edge the network between client and Worker settles the coding
 * (Cloudflare's front line asks the Worker for br or gzip and transcodes for the client;
 * Miniflare models it), so the Worker may answer a gzip client with the br variant.
 */
async function both(path: string, init: RequestInit = {}, { decoded = false } = {}): Promise<Answer> {
  const [a, b] = await Promise.all([ask(nodeUrl, path, init), ask(edge.url, path, init)]);
  const what = `${init.method ?? 'GET'} ${path} ${JSON.stringify(init.headers ?? {})}`;
  const compared = (x: Answer) => ({
    status: x.status,
    headers: decoded
      ? { ...x.headers, 'content-encoding': undefined, etag: x.headers.etag?.replace(/-(br|gzip)"$/, '"') }
      : x.headers,
  });
  expect(compared(b), what).toEqual(compared(a));
  expect(b.body.toString('utf8'), what).toBe(a.body.toString('utf8'));
  expect(b.body.equals(a.body), what).toBe(true);
  return a;
}

const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
const forge = (key: string) => key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');

describe('the Node server and the edge Worker answer alike', () => {
  it('lists, pages and filters; reads articles; 304s on a matching ETag', async () => {
    const alpha = keyring.keyFor('alpha');
    const list = await both('/v1/articles', bearer(alpha));
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body.toString()).articles.map((a: { slug: string }) => a.slug)).not.toContain('coming-soon');
    await both(`/v1/articles?key=${alpha}`);
    await both('/v1/articles', bearer(keyring.keyFor('beta')));
    for (const q of [
      'limit=1',
      'limit=1&offset=1',
      'offset=2',
      'kind=news',
      'kind=standard&limit=2',
      'updatedSince=2026-03-01T00:00:00Z',
      'limit=0',
      'limit=abc',
      'kind=nonsense',
      'offset=-1',
      'updatedSince=yesterday',
    ]) {
      await both(`/v1/articles?${q}`, bearer(alpha));
    }
    const one = await both('/v1/articles/first-steps', bearer(alpha));
    expect(one.status).toBe(200);
    await both('/v1/articles/news-flash', bearer(alpha));
    await both('/v1/articles/bonjour', bearer(keyring.keyFor('beta')));
    for (const [path, etag] of [
      ['/v1/articles', list.headers.etag!],
      ['/v1/articles/first-steps', one.headers.etag!],
    ] as const) {
      expect((await both(path, { headers: { ...bearer(alpha).headers, 'if-none-match': etag } })).status).toBe(304);
      expect(
        (await both(path, { headers: { ...bearer(alpha).headers, 'if-none-match': `W/${etag}, "other"` } })).status,
      ).toBe(304);
      expect((await both(path, { headers: { ...bearer(alpha).headers, 'if-none-match': '"stale"' } })).status).toBe(
        200,
      );
    }
    await both('/v1/articles/first-steps', { method: 'HEAD', ...bearer(alpha) });
  }, 60_000);

  it('sends the compressed variants the build stored, by Accept-Encoding, with their ETags and 304s', async () => {
    // Which coding goes over the wire is the edge network's to settle with the client (Miniflare
    // models Cloudflare's front line, which compresses compressible answers itself): compared
    // here are the status, the headers but Content-Encoding, and the bytes once decoded.
    const alpha = bearer(keyring.keyFor('alpha')).headers;
    for (const encoding of ['br', 'gzip', 'gzip, br', 'br;q=0.5, gzip']) {
      for (const path of ['/v1/articles/long-read', '/v1/articles/bonjour']) {
        const answer = await both(
          path,
          {
            headers: {
              ...(path.endsWith('bonjour') ? bearer(keyring.keyFor('beta')).headers : alpha),
              'accept-encoding': encoding,
            },
          },
          { decoded: true },
        );
        if (path.endsWith('long-read')) expect(answer.headers.etag, encoding).toMatch(/-(br|gzip)"$/);
        const key = path.endsWith('bonjour') ? bearer(keyring.keyFor('beta')).headers : alpha;
        expect(
          (
            await both(
              path,
              { headers: { ...key, 'accept-encoding': encoding, 'if-none-match': answer.headers.etag! } },
              { decoded: true },
            )
          ).status,
        ).toBe(304);
      }
    }
  }, 60_000);

  it('refuses missing, forged, other-site, unknown-site and preview-shaped keys alike', async () => {
    const alpha = keyring.keyFor('alpha');
    expect((await both('/v1/articles')).status).toBe(401);
    expect((await both('/v1/articles', bearer(forge(alpha)))).status).toBe(401);
    expect((await both(`/v1/articles?key=${forge(alpha)}`)).status).toBe(401);
    expect((await both('/v1/articles', { headers: { authorization: 'Basic dXNlcjpwYXNz' } })).status).toBe(401);
    expect((await both('/v1/articles', bearer('pk_alpha.short'))).status).toBe(401);
    expect((await both('/v1/articles', bearer(`pk_alpha.${'A'.repeat(300)}`))).status).toBe(401);
    expect(
      (
        await both(
          '/v1/articles',
          bearer(createKeyring('another-servers-secret-0123456789abcdef', { generationOf: () => 1 }).keyFor('alpha')),
        )
      ).status,
    ).toBe(401);
    expect((await both('/v1/articles', bearer(keyring.keyFor('gamma')))).status).toBe(401); // well signed, no such site
    expect((await both('/v1/articles', bearer(alpha.replace('pk_alpha', 'pk_beta')))).status).toBe(401);
    // The other site's key opens only that site: alpha's article is not beta's.
    expect((await both('/v1/articles/first-steps', bearer(keyring.keyFor('beta')))).status).toBe(404);
    expect((await both('/v1/articles/first-steps', {})).status).toBe(401);
    expect(
      (await both('/v1/articles/first-steps', { headers: { authorization: `Bearer ${alpha}`, 'if-none-match': '*' } }))
        .status,
    ).toBe(304);
    expect(
      (
        await both('/v1/articles/first-steps', {
          headers: { authorization: `Bearer ${forge(alpha)}`, 'if-none-match': '*' },
        })
      ).status,
    ).toBe(401);
  }, 60_000);

  it('answers hostile slugs and paths alike', async () => {
    const key = bearer(keyring.keyFor('alpha'));
    for (const slug of [
      'nope',
      'a-draft',
      'coming-soon',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      '..%2Fmanifest.json',
      '..%2F..%2Fbeta%2Farticles%2Fbonjour',
      '%2e%2e',
      '%00',
      '%E0%A4%A',
      'FIRST-STEPS',
      'first-steps.json',
      'x'.repeat(300),
      '%F0%9F%90%A7',
    ]) {
      await both(`/v1/articles/${slug}`, key);
    }
    for (const path of [
      '/v1/articles/',
      '/v1/articles/first-steps/',
      '/v1/articles/first-steps/extra',
      '/v1/nothing',
      '/manifest.json',
      '/alpha/articles.json',
      '/current.json',
      '/objects/x',
      '/_preview/alpha/articles/a-draft.json',
    ]) {
      await both(path, key);
    }
    await both('/v1/articles', { method: 'POST', ...key, body: '{}' });
    await both('/v1/articles/first-steps', { method: 'DELETE', ...key });
  }, 60_000);

  it('serves images, the machine-readable documents, CORS preflight and the service document alike', async () => {
    const article = JSON.parse(
      (await both('/v1/articles/first-steps', bearer(keyring.keyFor('alpha')))).body.toString(),
    );
    const image = new URL(article.imageUrl).pathname;
    const img = await both(image);
    expect(img.status).toBe(200);
    expect((await both(image, { headers: { 'if-none-match': img.headers.etag! } })).status).toBe(304);
    for (const path of [
      image.replace('/alpha/', '/beta/'),
      '/assets/alpha/..%2Fmanifest.json',
      '/assets/alpha/nothing.png',
      '/assets/gamma/cover.png',
    ])
      await both(path);
    for (const path of ['/openapi.json', '/v1/openapi.json', '/llms.txt', '/v1/llms.txt', '/'])
      expect((await both(path)).status).toBe(200);
    // The change feed is the state store's: the Worker has none, and answers as a Node server without one.
    expect((await both('/v1/changes', bearer(keyring.keyFor('alpha')))).status).toBe(503);
    expect((await both('/v1/changes?since=x', {})).status).toBe(401);
    const etag = (await both('/openapi.json')).headers.etag!;
    expect((await both('/openapi.json', { headers: { 'if-none-match': etag } })).status).toBe(304);
    await both('/v1/articles', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://site.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
  }, 60_000);

  it('a rotated key stops working at both once the rotation is deployed; the new one works', async () => {
    const old = keyring.keyFor('beta');
    expect((await both('/v1/articles', bearer(old))).status).toBe(200);
    await generations.rotate('beta');
    const fresh = keyring.keyFor('beta');
    expect(fresh).not.toBe(old);
    const deployed = await edge.deploy();
    expect(deployed).toMatchObject({ uploaded: 0, switched: true });
    expect((await both('/v1/articles', bearer(old))).status).toBe(401);
    expect((await both('/v1/articles/bonjour', bearer(fresh))).status).toBe(200);
    expect((await both('/v1/articles', bearer(keyring.keyFor('alpha')))).status).toBe(200); // other sites keep theirs
  }, 60_000);
});

describe('where the edge differs, by design', () => {
  it('leaves compressing a body made at request time (a list without its scheduled article) to the edge network: same bytes, the identity ETag', async () => {
    const headers = { ...bearer(keyring.keyFor('alpha')).headers, 'accept-encoding': 'br' };
    const [n, e] = await Promise.all([
      ask(nodeUrl, '/v1/articles', { headers }),
      ask(edge.url, '/v1/articles', { headers }),
    ]);
    expect([n.status, e.status]).toEqual([200, 200]);
    expect(e.body.equals(n.body)).toBe(true); // decoded
    const identity = await ask(nodeUrl, '/v1/articles', { headers: { authorization: headers.authorization } });
    expect(e.headers.etag).toBe(identity.headers.etag);
    expect(n.headers.etag).toBe(identity.headers.etag!.replace(/"$/, '-br"'));
  }, 30_000);

  it('refuses preview keys (drafts are never exported), where the Node server shows drafts uncached', async () => {
    const preview = keyring.previewKeyFor('alpha');
    const [n, e] = await Promise.all([
      ask(nodeUrl, '/v1/articles', bearer(preview)),
      ask(edge.url, '/v1/articles', bearer(preview)),
    ]);
    expect(n.status).toBe(200);
    expect(n.headers['cache-control']).toBe('private, no-store');
    expect(e.status).toBe(401);
    expect(e.headers['www-authenticate']).toBe('Bearer realm="quire", error="invalid_token"');
    expect(e.body.toString()).not.toContain('a-draft');
  }, 30_000);
});
