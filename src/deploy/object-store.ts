// What `quire deploy` needs of a bucket: S3 through the AWS SDK (s3-object-store.ts), or an R2
// binding (the local edge fills its bucket through this same interface). Keys are relative to the
// store's prefix; the store adds it.

export interface StoredObject {
  key: string;
  /** Its length in bytes. */
  size: number;
  /** When it was last written (ms since the epoch), when the store says. */
  modifiedMs?: number;
}

export interface ObjectStore {
  /** Where the objects go, for messages (`s3://bucket/prefix`). */
  readonly where: string;
  /** The object's bytes; null when there is none. */
  get(key: string): Promise<Uint8Array | null>;
  /** The object's length in bytes; null when there is none. */
  sizeOf(key: string): Promise<number | null>;
  /** Every object whose key starts with `prefix`. */
  list(prefix: string): AsyncIterable<StoredObject>;
  put(key: string, bytes: Uint8Array, meta: { contentType: string; cacheControl: string }): Promise<void>;
  /** Deletes the objects (those already gone are no error). */
  delete(keys: string[]): Promise<void>;
}
