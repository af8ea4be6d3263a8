// A real Content API server on an ephemeral loopback port.
import { createApiApp } from '../../src/api/app.ts';
import { openLocalSnapshot, type LocalSnapshotReader } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring, type Keyring } from '../../src/keys/api-keys.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';

export interface TestApi {
  url: string;
  keyring: Keyring;
  store: LocalSnapshotReader;
  server: RunningServer;
  close(): Promise<void>;
}

export const TEST_SECRET = 'test-secret-0123456789abcdef0123456789abcdef';

/**
 * Serves the build in `folders.distDir`, drafts from the preview trees in `folders.stateDir`.
 * `clock`: what the server takes for now (scheduled articles, expiries); default the real one.
 */
export async function startTestApi(
  folders: { distDir: string; stateDir: string },
  generations: Record<string, number> = {},
  clock?: () => number,
): Promise<TestApi> {
  const keyring = createKeyring(TEST_SECRET, { generationOf: (s) => generations[s] ?? 1 });
  const store = openLocalSnapshot(folders.distDir, folders.stateDir);
  store.reload();
  const server = await listen(
    createApiApp({ store, keyring, publicUrl: 'http://127.0.0.1', ...(clock ? { clock } : {}) }),
    0,
    '127.0.0.1',
  );
  const url = `http://127.0.0.1:${server.port}`;
  return { url, keyring, store, server, close: () => server.close() };
}
