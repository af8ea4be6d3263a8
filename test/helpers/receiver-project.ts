// What tests of webhooks share: one HTTPS receiver for the file (useHttpsReceiver: trusted
// in-process with its caPem, by child processes through NODE_EXTRA_CA_CERTS=its caFile) and, for
// CLI tests, the environment that points `quire` at a temp project (useReceiverProject).
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startHttpsReceiver, type HttpsReceiver } from './https-receiver.ts';
import type { TempProject } from './temp-content.ts';

export const RECEIVER_SECRET = 'receiver-shared-secret-0123456789';

/**
 * One receiver for a test file: started before its tests and before the beforeAll hooks
 * registered after this call (which may use it), closed after them. The object is filled in once
 * the receiver has started: read it inside hooks and tests, not at the top of the file.
 */
export function useHttpsReceiver(opts: Parameters<typeof startHttpsReceiver>[0] = {}): HttpsReceiver {
  const receiver = {} as HttpsReceiver;
  let started: HttpsReceiver | undefined;
  beforeAll(async () => {
    started = await startHttpsReceiver(opts);
    // The descriptors, not the values: `connections` stays a live getter.
    Object.defineProperties(receiver, Object.getOwnPropertyDescriptors(started));
  });
  afterAll(() => started?.close());
  return receiver;
}

/** Registers the hooks; `receiver()` and `project` are valid inside tests. */
export function useReceiverProject(): {
  receiver: () => HttpsReceiver;
  project: { current: TempProject | null };
  env: (stateDir?: string) => Record<string, string>;
} {
  const receiver = useHttpsReceiver();
  const project: { current: TempProject | null } = { current: null };
  afterEach(() => {
    project.current?.cleanup();
    project.current = null;
    if (receiver.requests) receiver.requests.length = 0; // none when it failed to start
  });
  const env = (stateDir?: string) => {
    const p = project.current!;
    return {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: stateDir ?? p.stateDir,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      QUIRE_PUBLISH_RETRY_WINDOW_MS: '0',
    };
  };
  return { receiver: () => receiver, project, env };
}
