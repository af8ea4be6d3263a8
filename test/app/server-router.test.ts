// The server's root router over a real socket: the API, the mounted apps and health side by side,
// the body cap in front of every route that reads a body, and each refusal in its path's format
// (the admin's pages under /admin, the API's JSON elsewhere).
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/api-error.ts';
import { createServerRouter } from '../../src/app/server-router.ts';
import { createHookApp } from '../../src/follow/hook-routes.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import type { TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites } from '../api/fixture.ts';

const keyring = createKeyring(TEST_SECRET, { generationOf: () => 1 });
let p: TempProject;
let server: RunningServer;
let url: string;

beforeAll(async () => {
  p = await buildTwoSites();
  const store = openLocalSnapshot(p.distDir, p.stateDir);
  store.reload();
  const admin = new Hono();
  admin.get('/sign-in', (c) => c.html('<p>sign in</p>'));
  admin.post('/form', async (c) => c.text(`read ${(await c.req.text()).length}`));
  const hooks = createHookApp({ secret: 'hook-secret', branch: () => 'main', trigger: () => {}, log: () => {} });
  const app = createServerRouter({
    api: { store, keyring, publicUrl: 'http://127.0.0.1' },
    admin: {
      app: admin,
      renderError: (err: ApiError, c) => c.html(`<p>${err.message}</p>`, err.status as 413, err.headers),
    },
    hooks,
    maxBodyBytes: 64,
    metrics: createMetrics({ pending: null }),
  });
  server = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${server.port}`;
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

describe("the server's router", () => {
  it('serves the API, the mounted apps, health and metrics side by side', async () => {
    expect(
      (await fetch(`${url}/v1/articles`, { headers: { authorization: `Bearer ${keyring.keyFor('alpha')}` } })).status,
    ).toBe(200);
    expect(await (await fetch(`${url}/admin/sign-in`)).text()).toBe('<p>sign in</p>');
    expect((await fetch(`${url}/hooks/git`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${url}/metrics`)).headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it("caps every body read, answering the admin's refusal as its page and others in the API's shape", async () => {
    const small = await fetch(`${url}/admin/form`, { method: 'POST', body: 'x'.repeat(64) });
    expect(await small.text()).toBe('read 64');
    const page = await fetch(`${url}/admin/form`, { method: 'POST', body: 'x'.repeat(65) });
    expect(page.status).toBe(413);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const hook = await fetch(`${url}/hooks/git`, { method: 'POST', body: 'x'.repeat(65) });
    expect(hook.status).toBe(413);
    expect(((await hook.json()) as { error: { code: string } }).error.code).toBe('BODY_TOO_LARGE');
  });

  it("answers a path no route takes 404, and another method on the API's paths 405, in the API's shape", async () => {
    const none = await fetch(`${url}/nothing-here`);
    expect(none.status).toBe(404);
    expect(none.headers.get('access-control-allow-origin')).toBe('*');
    const post = await fetch(`${url}/v1/articles`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('answers a preflight on any path no mounted app answers', async () => {
    expect((await fetch(`${url}/v1/articles`, { method: 'OPTIONS' })).status).toBe(204);
    expect((await fetch(`${url}/healthz`, { method: 'OPTIONS' })).status).toBe(204);
  });
});
