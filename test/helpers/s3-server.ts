// A real S3-protocol server (s3rver) on an ephemeral loopback port, with one bucket, its objects
// in a temp dir; and the settings that point `quire deploy` at it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { openS3Store } from '../../src/deploy/s3-object-store.ts';
import type { ObjectStore } from '../../src/deploy/object-store.ts';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment `quire deploy` reads (credentials as s3rver accepts them). */
  env(prefix?: string): Record<string, string>;
  store(prefix?: string): ObjectStore & { close(): void };
  close(): Promise<void>;
}

const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export async function startTestS3(bucket = 'quire-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  Object.assign(process.env, CREDENTIALS);
  const stores: { close(): void }[] = [];
  return {
    endpoint,
    bucket,
    env: (prefix = '') => ({
      ...CREDENTIALS,
      QUIRE_S3_BUCKET: bucket,
      QUIRE_S3_ENDPOINT: endpoint,
      ...(prefix ? { QUIRE_S3_PREFIX: prefix } : {}),
    }),
    store(prefix = '') {
      const store = openS3Store({ bucket, prefix, endpoint, region: 'auto' });
      stores.push(store);
      return store;
    },
    async close() {
      for (const s of stores) s.close();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
