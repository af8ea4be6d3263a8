// The ObjectStore of an R2 bucket binding (its Workers API, as Miniflare hands it to Node): how
// the local edge (`quire edge`, `npm run edge`) fills its bucket through the same deploy as `quire deploy`.
import type { ObjectStore, StoredObject } from './object-store.ts';

/** The part of an R2 bucket binding a deploy uses. */
export interface R2BucketLike {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  head(key: string): Promise<{ size: number } | null>;
  list(options: {
    prefix?: string;
    cursor?: string;
    limit?: number;
  }): Promise<{ objects: { key: string; size: number; uploaded?: Date }[]; truncated: boolean; cursor?: string }>;
  put(
    key: string,
    value: Uint8Array,
    options?: { httpMetadata?: { contentType?: string; cacheControl?: string } },
  ): Promise<unknown>;
  delete(keys: string | string[]): Promise<void>;
}

export function openR2Store(bucket: R2BucketLike, name: string, prefix = ''): ObjectStore {
  const base = prefix ? `${prefix}/` : '';
  return {
    where: `r2://${name}/${base}`,
    async get(key) {
      const object = await bucket.get(base + key);
      return object ? new Uint8Array(await object.arrayBuffer()) : null;
    },
    sizeOf: async (key) => (await bucket.head(base + key))?.size ?? null,
    async *list(prefix): AsyncIterable<StoredObject> {
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix: base + prefix, limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const o of page.objects)
          yield { key: o.key.slice(base.length), size: o.size, modifiedMs: o.uploaded?.getTime() };
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
    },
    async put(key, bytes, meta) {
      await bucket.put(base + key, bytes, {
        httpMetadata: { contentType: meta.contentType, cacheControl: meta.cacheControl },
      });
    },
    async delete(keys) {
      if (keys.length) await bucket.delete(keys.map((k) => base + k));
    },
  };
}
