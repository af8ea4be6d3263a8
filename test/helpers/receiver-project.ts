// What CLI tests of webhooks share: one HTTPS receiver for the file (trusted by the child
// processes through NODE_EXTRA_CA_CERTS) and the environment that points `quire` at a temp project.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startHttpsReceiver, testPki, type HttpsReceiver } from './https-receiver.ts';
import type { TempProject } from './temp-content.ts';

export const RECEIVER_SECRET = 'receiver-shared-secret-0123456789';

/** Registers the hooks; `receiver()` and `project` are valid inside tests. */
export function useReceiverProject(): { receiver: () => HttpsReceiver; project: { current: TempProject | null }; env: (stateDir?: string) => Record<string, string> } {
  let receiver: HttpsReceiver | null = null;
  let caFile = '';
  const project: { current: TempProject | null } = { current: null };
  beforeAll(async () => {
    caFile = (await testPki()).caFile;
    receiver = await startHttpsReceiver();
  });
  afterAll(() => receiver?.close());
  afterEach(() => {
    project.current?.cleanup();
    project.current = null;
    if (receiver) receiver.requests.length = 0;
  });
  const env = (stateDir?: string) => {
    const p = project.current!;
    return {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: stateDir ?? p.stateDir,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: caFile,
      QUIRE_PUBLISH_RETRY_WINDOW_MS: '0',
    };
  };
  return { receiver: () => receiver!, project, env };
}
