import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { buildExport } from '../../src/compile/build.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { createResponseValidator, validateOpenApiDocument } from '../helpers/openapi.ts';
import { article, type TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites, PNG_BYTES } from './fixture.ts';

let project: TempProject;
let api: TestApi;
let alphaKey: string;
let betaKey: string;
let validate: ReturnType<typeof createResponseValidator>;

beforeAll(async () => {
  project = await buildTwoSites();
  api = await startTestApi(project);
  alphaKey = api.keyring.keyFor('alpha');
  betaKey = api.keyring.keyFor('beta');
  const doc = JSON.parse(await (await fetch(`${api.url}/openapi.json`)).text());
  validate = createResponseValidator(doc);
});

afterAll(async () => {
  await api?.close();
  project?.cleanup();
});

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(`${api.url}${path}`, { method, headers });
  const text = await res.text();
  const json = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  const template = path.startsWith('/v1/articles/')
    ? '/articles/{slug}'
    : path.startsWith('/v1/articles')
      ? '/articles'
      : null;
  if (template && method === 'GET' && res.status !== 405) validate(template, res.status, json);
  return { res, text, json };
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('GET /v1/articles', () => {
  it("lists the keyed site's published articles, newest first, with the spec's fields", async () => {
    const { res, json } = await get('/v1/articles', bearer(alphaKey));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.site).toEqual({ name: 'Alpha Journal', lang: 'en' });
    expect(json.total).toBe(3);
    expect(json.articles.map((a: { slug: string }) => a.slug)).toEqual(['news-flash', 'second-look', 'first-steps']);
    expect(json.articles[2]).toEqual({
      slug: 'first-steps',
      title: 'First steps',
      metaDescription: 'How to start.',
      excerpt: 'The first paragraph is here.',
      lang: 'en',
      publishedAt: '2026-01-10T08:00:00Z',
      updatedAt: '2026-02-01T09:30:00Z',
      imageUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1\/assets\/alpha\/cover\.[0-9a-f]{16}\.png$/),
      imageAlt: 'A cover',
    });
    expect(json.articles[1].metaDescription).toBeNull();
    expect(json.articles[1].imageUrl).toBeNull();
  });

  it("accepts the key as ?key= and scopes results to the key's site", async () => {
    const { res, json } = await get(`/v1/articles?key=${encodeURIComponent(betaKey)}`);
    expect(res.status).toBe(200);
    expect(json.site).toEqual({ name: 'Carnet Bêta', lang: 'fr' });
    expect(json.articles.map((a: { slug: string }) => a.slug)).toEqual(['bonjour']);
  });

  it('answers HEAD with the headers and no body', async () => {
    const { res, text } = await get('/v1/articles', bearer(alphaKey), 'HEAD');
    expect(res.status).toBe(200);
    expect(text).toBe('');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });

  it('pages with limit and offset, keeping total as the full count', async () => {
    const { json } = await get('/v1/articles?limit=2&offset=1', bearer(alphaKey));
    expect(json.total).toBe(3);
    expect(json.articles.map((a: { slug: string }) => a.slug)).toEqual(['second-look', 'first-steps']);
    const past = await get('/v1/articles?offset=10', bearer(alphaKey));
    expect(past.json).toMatchObject({ total: 3, articles: [] });
  });

  it('filters by kind and updatedSince', async () => {
    expect(
      (await get('/v1/articles?kind=news', bearer(alphaKey))).json.articles.map((a: { slug: string }) => a.slug),
    ).toEqual(['news-flash']);
    const since = await get('/v1/articles?updatedSince=2026-03-01T00:00:00Z', bearer(alphaKey));
    expect(since.json.total).toBe(2);
    expect(since.json.articles.map((a: { slug: string }) => a.slug)).toEqual(['news-flash', 'second-look']);
  });

  it.each([
    'limit=0',
    'limit=abc',
    'limit=1001',
    'limit=-1',
    'offset=-1',
    'offset=1.5',
    'kind=video',
    'updatedSince=yesterday',
    'updatedSince=2026-13-40',
    'limit=1&limit=2',
  ])('refuses %s with 400 and the error shape', async (query) => {
    const { res, json } = await get(`/v1/articles?${query}`, bearer(alphaKey));
    expect(res.status).toBe(400);
    expect(json.error).toMatchObject({ status: 400, code: 'QUERY_INVALID' });
    expect(json.error.message).toMatch(/limit|offset|kind|updatedSince/);
  });
});

describe('GET /v1/articles/{slug}', () => {
  it('returns the full article with author, related (published only) and kind', async () => {
    const { res, json } = await get('/v1/articles/first-steps', bearer(alphaKey));
    expect(res.status).toBe(200);
    expect(Object.keys(json)).toEqual([
      'slug',
      'title',
      'metaDescription',
      'lang',
      'html',
      'markdown',
      'imageUrl',
      'imageAlt',
      'publishedAt',
      'updatedAt',
      'kind',
      'sourceUrl',
      'related',
      'author',
    ]);
    expect(json.author).toEqual({ name: 'Ada Lovelace', bio: 'Writes about engines.', url: 'https://ada.example.com' });
    expect(json.related).toEqual([
      { slug: 'second-look', title: 'Second look' },
      { slug: 'news-flash', title: 'News flash' },
    ]);
    expect(json.kind).toBe('standard');
    expect(json.sourceUrl).toBeNull();
    expect(json.markdown).toContain('![inline](../images/cover.png)');
    expect(json.html).toContain(`<img src="${json.imageUrl}" alt="inline">`);
  });

  it('gives an author without bio or url nulls, and news articles their sourceUrl', async () => {
    expect((await get('/v1/articles/second-look', bearer(alphaKey))).json.author).toEqual({
      name: 'Bob',
      bio: null,
      url: null,
    });
    const news = (await get('/v1/articles/news-flash', bearer(alphaKey))).json;
    expect(news).toMatchObject({ kind: 'news', sourceUrl: 'https://source.example.net/x', author: null });
  });

  it.each([
    ['a draft', '/v1/articles/a-draft'],
    ['an unknown slug', '/v1/articles/nope'],
    ["another site's slug", '/v1/articles/bonjour'],
    ['a traversal', '/v1/articles/..%2F..%2Fmanifest'],
    ['an encoded dot-dot', '/v1/articles/%2e%2e'],
    ['upper case', '/v1/articles/First-Steps'],
    ['non-ASCII', '/v1/articles/caf%C3%A9'],
    ['a NUL byte', '/v1/articles/a%00b'],
    ['an over-long slug', `/v1/articles/${'a'.repeat(5000)}`],
  ])('answers 404 for %s', async (_label, path) => {
    const { res, json } = await get(path, bearer(alphaKey));
    expect(res.status).toBe(404);
    expect(json.error).toMatchObject({ status: 404, code: expect.stringMatching(/NOT_FOUND$/) });
  });
});

describe('keys', () => {
  const forged = (key: string) => key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  it.each([
    ['no key', {}, 'API_KEY_MISSING'],
    ['a malformed key', { authorization: 'Bearer not-a-key' }, 'API_KEY_INVALID'],
    ['a non-Bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 'API_KEY_INVALID'],
  ] as const)('refuses %s with 401 and WWW-Authenticate', async (_label, headers, code) => {
    const { res, json } = await get('/v1/articles', headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="quire"/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(json.error).toMatchObject({ status: 401, code });
  });

  it("refuses a forged signature, another server's key, a site that does not exist and a rotated key", async () => {
    const other = createKeyring('another-secret-0123456789abcdef0123456789', { generationOf: () => 1 });
    const rotated = createKeyring('test-secret-0123456789abcdef0123456789abcdef', { generationOf: () => 2 });
    for (const key of [
      forged(alphaKey),
      other.keyFor('alpha'),
      api.keyring.keyFor('gamma'),
      rotated.keyFor('alpha'),
      `${alphaKey}x`,
      alphaKey.replace('pk_alpha', 'pk_beta'),
    ]) {
      const { res } = await get('/v1/articles', bearer(key));
      expect(res.status, key).toBe(401);
      const single = await get(`/v1/articles/first-steps?key=${encodeURIComponent(key)}`);
      expect(single.res.status, key).toBe(401);
    }
  });
});

describe('HTTP behaviour', () => {
  it('caches for an hour per key with a strong ETag and answers If-None-Match with 304', async () => {
    const first = await get('/v1/articles/first-steps', bearer(alphaKey));
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(first.res.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    const again = await get('/v1/articles/first-steps', { ...bearer(alphaKey), 'if-none-match': etag });
    expect(again.res.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.res.headers.get('etag')).toBe(etag);
    expect(
      (await get('/v1/articles/first-steps', { ...bearer(alphaKey), 'if-none-match': `"x", W/${etag}` })).res.status,
    ).toBe(304);
    expect(
      (await get('/v1/articles/first-steps', { ...bearer(alphaKey), 'if-none-match': '"other"' })).res.status,
    ).toBe(200);
    const list = await get('/v1/articles', bearer(alphaKey));
    expect(list.res.headers.get('etag')).not.toBe(etag);
  });

  it('never answers 304 to a request without a valid key', async () => {
    const etag = (await get('/v1/articles', bearer(alphaKey))).res.headers.get('etag')!;
    expect((await get('/v1/articles', { 'if-none-match': etag })).res.status).toBe(401);
  });

  it('answers CORS preflight and sends open CORS headers', async () => {
    const res = await fetch(`${api.url}/v1/articles`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://anywhere.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const ok = await get('/v1/articles', { ...bearer(alphaKey), origin: 'https://anywhere.example' });
    expect(ok.res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('answers %s with 405 and Allow', async (method) => {
    for (const path of ['/v1/articles', '/v1/articles/first-steps']) {
      const { res, json } = await get(path, bearer(alphaKey), method);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(json.error).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    }
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    const { res, json } = await get('/v2/articles', bearer(alphaKey));
    expect(res.status).toBe(404);
    expect(json).toEqual({ error: { status: 404, code: 'ROUTE_NOT_FOUND', message: expect.any(String) } });
  });

  it('serves images under content-hashed names with immutable caching', async () => {
    const { json } = await get('/v1/articles/first-steps', bearer(alphaKey));
    const res = await fetch(json.imageUrl.replace('http://127.0.0.1', api.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG_BYTES)).toBe(true);
    expect((await fetch(`${api.url}/assets/alpha/cover.0000000000000000.png`)).status).toBe(404);
    expect((await fetch(`${api.url}/assets/alpha/..%2F..%2Fmanifest.json`)).status).toBe(404);
  });
});

describe('machine-readable documents', () => {
  it('serves a valid OpenAPI 3.1 document at /openapi.json and /v1/openapi.json', async () => {
    const doc = JSON.parse(await (await fetch(`${api.url}/openapi.json`)).text());
    const result = await validateOpenApiDocument(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths)).toEqual(['/articles', '/articles/{slug}', '/changes']);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerKey', 'queryKey']);
    expect(doc.webhooks.publish.post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/WebhookPayload',
    );
    expect(doc.components.schemas.Article.properties.author.anyOf).toContainEqual({
      type: 'null',
      description: 'none',
    });
    expect(await (await fetch(`${api.url}/v1/openapi.json`)).json()).toEqual(doc);
  });

  it('rejects a response that breaks the documented nullability (the validator can fail)', () => {
    expect(() => validate('/articles/{slug}', 200, { slug: 'x' })).toThrow(/does not match/);
    expect(() =>
      validate('/articles', 200, {
        site: { name: 'n', lang: 'en' },
        total: 1,
        articles: [
          {
            slug: 's',
            title: 't',
            metaDescription: null,
            excerpt: null,
            lang: 'en',
            publishedAt: null,
            updatedAt: null,
            imageUrl: null,
            imageAlt: null,
          },
        ],
      }),
    ).toThrow(/excerpt/);
  });

  it('serves /llms.txt in the llmstxt.org shape', async () => {
    for (const path of ['/llms.txt', '/v1/llms.txt']) {
      const res = await fetch(`${api.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const text = await res.text();
      expect(text).toMatch(/^# Quire Content API\n\n> .+\n/);
      expect(text).toMatch(/^## Endpoints$/m);
      expect(text).toContain('/openapi.json');
      expect(text).toMatch(/Authorization: Bearer/);
    }
  });
});

describe('a new build', () => {
  it('is served without a restart', async () => {
    const stop = api.store.watch(undefined, 50);
    try {
      project.write(
        'alpha/articles/fresh.md',
        article({
          title: 'Fresh',
          status: 'published',
          publishedAt: '2026-06-01T00:00:00Z',
          updatedAt: '2026-06-01T00:00:00Z',
        }),
      );
      const result = await buildExport({
        contentDir: project.contentDir,
        distDir: project.distDir,
        stateDir: project.stateDir,
        publicUrl: 'http://127.0.0.1',
      });
      expect(result.ok).toBe(true);
      let slugs: string[] = [];
      for (let i = 0; i < 100 && !slugs.includes('fresh'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        slugs = (await get('/v1/articles', bearer(alphaKey))).json.articles.map((a: { slug: string }) => a.slug);
      }
      expect(slugs[0]).toBe('fresh');
      expect((await get('/v1/articles/fresh', bearer(alphaKey))).res.status).toBe(200);
    } finally {
      stop();
    }
  });
});
