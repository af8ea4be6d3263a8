// Key auth on its own, over a real build and keyring: the key from the Authorization header or
// ?key=, the site it opens and its scope for the handlers after it; 401 with a challenge without
// a key or with one that opens no site; 503 while there is no build.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblems } from '../../../src/api/error-response.ts';
import { keyAuth, type KeyAuthEnv, type KeyAuthOptions } from '../../../src/api/middleware/key-auth.ts';
import { createKeyring } from '../../../src/keys/api-keys.ts';
import { openLocalSnapshot } from '../../../src/snapshot/local-snapshot.ts';
import { timedReader } from '../../../src/snapshot/timed-view.ts';
import { TEST_SECRET } from '../../helpers/api-server.ts';
import type { TempProject } from '../../helpers/temp-content.ts';
import { buildTwoSites } from '../fixture.ts';

const keyring = createKeyring(TEST_SECRET, { generationOf: () => 1 });
let p: TempProject;
let served: ReturnType<typeof timedReader>;
beforeAll(async () => {
  p = await buildTwoSites();
  const dist = openLocalSnapshot(p.distDir, p.stateDir);
  dist.reload();
  served = timedReader(dist);
}, 60_000);
afterAll(() => p?.cleanup());

function appWith(options: Partial<KeyAuthOptions> = {}) {
  const app = new Hono<KeyAuthEnv>();
  app.get('/v1/things', keyAuth({ keyring, reader: () => served, ...options }), (c) =>
    c.json({ site: c.var.site.id, scope: c.var.keyScope, articles: [...c.var.site.articles.keys()].sort() }),
  );
  app.onError(answerProblems());
  return app;
}

const problem = async (res: Response) => ((await res.json()) as { error: { status: number; code: string } }).error;

describe('keyAuth', () => {
  it('opens the site of a key sent as a bearer token, for the handlers after it', async () => {
    const res = await appWith().request('/v1/things', {
      headers: { authorization: `Bearer ${keyring.keyFor('alpha')}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      site: 'alpha',
      scope: 'public',
      articles: ['first-steps', 'news-flash', 'second-look'],
    });
  });

  it('takes the key from ?key= too', async () => {
    const res = await appWith().request(`/v1/things?key=${encodeURIComponent(keyring.keyFor('beta'))}`);
    expect(((await res.json()) as { site: string }).site).toBe('beta');
  });

  it("opens a preview key's site with its drafts, scoped as a preview", async () => {
    const res = await appWith().request('/v1/things', {
      headers: { authorization: `Bearer ${keyring.previewKeyFor('alpha')}` },
    });
    expect(await res.json()).toMatchObject({
      site: 'alpha',
      scope: 'preview',
      articles: expect.arrayContaining(['a-draft']),
    });
  });

  it('tells which site a key opened', async () => {
    const noted: string[] = [];
    await appWith({ noteSite: (_c, siteId) => noted.push(siteId) }).request('/v1/things', {
      headers: { authorization: `Bearer ${keyring.keyFor('beta')}` },
    });
    expect(noted).toEqual(['beta']);
  });

  it('answers a request without a key 401 API_KEY_MISSING with a Bearer challenge', async () => {
    const res = await appWith().request('/v1/things');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quire"');
    expect(await problem(res)).toMatchObject({ status: 401, code: 'API_KEY_MISSING' });
  });

  it('answers a key that opens no site 401 API_KEY_INVALID, an invalid_token challenge', async () => {
    const other = createKeyring('another-secret-0123456789abcdef0123456789ab', { generationOf: () => 1 });
    for (const key of [
      'pk_alpha_nope',
      other.keyFor('alpha'),
      'Basic YTpi',
      createKeyring(TEST_SECRET, { generationOf: () => 1 }).keyFor('gamma'),
    ]) {
      const res = await appWith().request('/v1/things', {
        headers: { authorization: key.startsWith('Basic') ? key : `Bearer ${key}` },
      });
      expect(res.status, key).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quire", error="invalid_token"');
      expect((await problem(res)).code).toBe('API_KEY_INVALID');
    }
  });

  it('names its realm in the challenge', async () => {
    expect((await appWith({ realm: 'docs' }).request('/v1/things')).headers.get('www-authenticate')).toBe(
      'Bearer realm="docs"',
    );
  });

  it('answers 503 CONTENT_UNAVAILABLE with Retry-After while there is no build', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-nobuild-'));
    try {
      const res = await appWith({ reader: () => timedReader(openLocalSnapshot(empty, empty)) }).request('/v1/things', {
        headers: { authorization: `Bearer ${keyring.keyFor('alpha')}` },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await problem(res)).code).toBe('CONTENT_UNAVAILABLE');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('takes a verifier that answers with a promise (Web Crypto at the edge)', async () => {
    const later = { grant: async (key: string, sites: { has(id: string): boolean }) => keyring.grant(key, sites) };
    const res = await appWith({ keyring: later }).request('/v1/things', {
      headers: { authorization: `Bearer ${keyring.keyFor('alpha')}` },
    });
    expect(((await res.json()) as { site: string }).site).toBe('alpha');
  });

  it('refuses options it cannot check keys with, when it is made', () => {
    expect(() => keyAuth({ keyring: {} as typeof keyring, reader: () => served })).toThrow(/keyring/);
    expect(() => keyAuth({ keyring, reader: undefined as unknown as KeyAuthOptions['reader'] })).toThrow(/reader/);
    expect(() => keyAuth({ keyring, reader: () => served, realm: 'a"b' })).toThrow(/realm/);
  });

  it('is a named function, for stack traces', () => {
    expect(keyAuth({ keyring, reader: () => served }).name).toBe('keyAuth');
  });
});
