// The API server with the Publishing app mounted, in this process on an ephemeral loopback port,
// over a real dist/ and a real SQLite state store. `AdminClient` is a cookie-keeping HTTP client
// that signs in and posts forms with the session's CSRF token, as a browser without script does.
import { createAdminApp } from '../../src/admin/admin-app.tsx';
import { createServerRouter } from '../../src/app/server-router.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import type { ContentFacts } from '../../src/content/load-content.ts';
import { loadContent } from '../../src/content/load-content.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createSafeClient } from '../../src/net/safe-client.ts';
import type { DeliveryDeps } from '../../src/delivery/delivery-runner.ts';
import { listen } from '../../src/server/serve.ts';
import { TEST_SECRET } from './api-server.ts';
import type { TempProject } from './temp-content.ts';
import { openTestStore } from './test-store.ts';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface AdminServer {
  url: string;
  publishing: DeliveryDeps;
  close(): Promise<void>;
}

/**
 * Serves `p.distDir` (build it first). `ca` trusts a test receiver's throwaway CA. `lastBuild` is
 * what the Articles tab shows; by default the content as loaded once, now.
 */
export async function startAdminServer(
  p: TempProject,
  opts: { ca?: string; lastBuild?: () => ContentFacts; log?: (line: string) => void } = {},
): Promise<AdminServer> {
  const loaded = await loadContent(p.contentDir);
  const generations = new Map<string, number>();
  const keyring = createKeyring(TEST_SECRET, { generationOf: (s) => generations.get(s) ?? 1 });
  const dist = openLocalSnapshot(p.distDir, p.stateDir);
  dist.reload();
  const store = openTestStore(p.stateDir, TEST_SECRET);
  const client = createSafeClient({ allowPrivate: true, log: () => {}, ...(opts.ca ? { ca: opts.ca } : {}) });
  const publishing: DeliveryDeps = {
    store,
    client,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    timeoutMs: 5_000,
  };
  let base = '';
  const admin = createAdminApp({
    adminToken: ADMIN_TOKEN,
    publicUrl: () => base,
    contentDir: p.contentDir,
    distDir: p.distDir,
    dist,
    keyring,
    rotateKey: async (siteId) => generations.set(siteId, (generations.get(siteId) ?? 1) + 1),
    publishing,
    allowPrivate: true,
    lastBuild: opts.lastBuild ?? (() => loaded),
    ...(opts.log ? { log: opts.log } : {}),
  });
  const app = createServerRouter({
    api: { store: dist, keyring, publicUrl: 'http://127.0.0.1' },
    admin: { app: admin },
  });
  const server = await listen(app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
  return {
    url: base,
    publishing,
    async close() {
      await server.close();
      client.close();
      await store.close();
    },
  };
}

export interface AdminClient {
  /** The session cookie, for requests a test builds itself. */
  cookie: string;
  get(path: string): Promise<Response>;
  /** Posts a form with the session's CSRF token added. */
  post(path: string, fields: Record<string, string>): Promise<Response>;
}

/** Signs in and keeps the session cookie; redirects are not followed, so tests see them. */
export async function signIn(baseUrl: string): Promise<AdminClient> {
  const res = await fetch(`${baseUrl}/admin/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ token: ADMIN_TOKEN }),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const get = (path: string) => fetch(`${baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
  const home = await (await get('/admin')).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1];
  if (!csrf) throw new Error('no CSRF token on the sites page');
  return {
    cookie,
    get,
    post: (path, fields) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { cookie },
        body: new URLSearchParams({ ...fields, _csrf: csrf }),
        redirect: 'manual',
      }),
  };
}
