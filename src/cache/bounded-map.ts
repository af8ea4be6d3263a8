// A Map with a fixed number of entries: the least recently used one is dropped to make room.
// Any cache keyed by something a client can vary must be bounded (this, or another cache of this
// folder), or grow without end.
export class BoundedMap<K, V> {
  readonly maxEntries: number;
  private readonly entries = new Map<K, V>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be a whole number of at least 1, not ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
