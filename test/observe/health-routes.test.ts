// /healthz and /readyz over a real socket: 200 when the server can do its job, 503 with a
// reason when it has no build, its delivery worker stopped, or its state cannot be read. Anyone
// may ask them, so they tell nothing a draft changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerRouter } from '../../src/app/server-router.ts';
import { buildExport } from '../../src/compile/build.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createReadiness, type WorkerHealth } from '../../src/observe/readiness.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { article, type TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites } from '../api/fixture.ts';

const keyring = createKeyring('test-secret-0123456789abcdef0123456789abcdef', { generationOf: () => 1 });
let p: TempProject;
beforeAll(async () => {
  p = await buildTwoSites();
});
afterAll(() => p.cleanup());

async function serveWith(
  distDir: string,
  worker: () => WorkerHealth,
): Promise<{ url: string; server: RunningServer; store: ReturnType<typeof openLocalSnapshot> }> {
  const store = openLocalSnapshot(distDir, p.stateDir);
  store.reload();
  const readiness = createReadiness({ buildServed: () => store.current() !== null, worker });
  const server = await listen(
    createServerRouter({ api: { store, keyring, publicUrl: 'http://127.0.0.1' }, readiness }),
    0,
    '127.0.0.1',
  );
  return { url: `http://127.0.0.1:${server.port}`, server, store };
}

const probe = async (url: string) => {
  const res = await fetch(url);
  return {
    status: res.status,
    cache: res.headers.get('cache-control'),
    body: (await res.json()) as Record<string, unknown>,
  };
};

describe('health checks', () => {
  it('ready: a build is served and the worker runs', async () => {
    const { url, server } = await serveWith(p.distDir, () => ({ running: true, error: null }));
    try {
      expect(await probe(`${url}/healthz`)).toEqual({ status: 200, cache: 'no-store', body: { ok: true } });
      expect(await probe(`${url}/readyz`)).toEqual({ status: 200, cache: 'no-store', body: { ready: true } });
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('503 with a reason: no build, worker stopped, state unreadable (alive all the while)', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-nodist-'));
    let health: WorkerHealth = { running: true, error: null };
    const none = await serveWith(empty, () => health);
    const built = await serveWith(p.distDir, () => health);
    try {
      expect(await probe(`${none.url}/readyz`)).toEqual({
        status: 503,
        cache: 'no-store',
        body: { ready: false, reason: 'no build is served yet' },
      });
      expect((await probe(`${none.url}/healthz`)).status).toBe(200);
      health = { running: true, error: 'SQLITE_CORRUPT: /secret/path/state.db is malformed' };
      const unreadable = await probe(`${built.url}/readyz`);
      expect(unreadable).toEqual({
        status: 503,
        cache: 'no-store',
        body: { ready: false, reason: 'the state database cannot be read; see the server log' },
      });
      health = { running: false, error: null };
      expect((await probe(`${built.url}/readyz`)).body).toEqual({
        ready: false,
        reason: 'the delivery worker is not running',
      });
      expect((await probe(`${built.url}/healthz`)).status).toBe(200);
    } finally {
      await none.server.close();
      await built.server.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a draft-only edit changes nothing they answer (the served build does change)', async () => {
    const own = await buildTwoSites();
    const { url, server, store } = await serveWith(own.distDir, () => ({ running: true, error: null }));
    try {
      const answers = async () => [await probe(`${url}/healthz`), await probe(`${url}/readyz`)];
      const before = await answers();
      const buildBefore = store.current()!.buildId;
      own.write(
        'alpha/articles/a-draft.md',
        article(
          { title: 'A draft, rewritten', publishedAt: '2026-05-01T00:00:00Z', updatedAt: '2026-05-01T00:00:00Z' },
          'Still not yet.\n',
        ),
      );
      own.write('beta/articles/brouillon.md', article({ title: 'Brouillon' }, 'Pas encore.\n'));
      const rebuilt = await buildExport({
        contentDir: own.contentDir,
        distDir: own.distDir,
        stateDir: own.stateDir,
        publicUrl: 'http://127.0.0.1',
      });
      expect(rebuilt.ok).toBe(true);
      store.reload();
      expect(store.current()!.buildId).not.toBe(buildBefore);
      expect(await answers()).toEqual(before);
    } finally {
      await server.close();
      own.cleanup();
    }
  });
});
