// The delivery worker reports its health for /readyz: running until stopped, and the error of a
// drain that could not read the state database (here: a closed one), until a drain succeeds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { startDeliveryWorker } from '../../src/delivery/delivery-worker.ts';
import { openStateStore } from '../../src/store/state-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('delivery worker health', () => {
  it('is running and clean, then reports an unreadable state, then stopped', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-worker-'));
    dirs.push(dir);
    const store = openStateStore(dir, 'server-secret-0123456789abcdef0123456789');
    const client = createSafeClient({ allowPrivate: false });
    const logged: string[] = [];
    const deps = { store, client, now: Date.now, sleep: async () => {}, log: (l: string) => logged.push(l) };
    const worker = startDeliveryWorker(deps, 60_000);
    try {
      await expect.poll(() => worker.health()).toEqual({ running: true, error: null });
      await store.close();
      // A wake while a drain runs is a no-op: wake until a drain has run on the closed store.
      await expect
        .poll(() => {
          worker.wake();
          return worker.health().error;
        })
        .toMatch(/not open/);
      expect(worker.health().running).toBe(true);
      expect(logged.join('\n')).toMatch(/Webhook delivery worker: .*not open/);
    } finally {
      await worker.stop();
      client.close();
    }
    expect(worker.health().running).toBe(false);
  });
});
