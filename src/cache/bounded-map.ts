// A Map with a fixed number of entries: when it is full, an entry not read since the sweep last
// passed it makes room (the "second chance" approximation of least recently used).
// Any cache keyed by something a client can vary must be bounded (this, or another cache of this
// folder), or grow without end.
//
// Why not exact LRU by moving an entry to the end of the Map on every read: these maps sit on the
// API's hot path (the Host decisions, the keyring's memo), live in the old generation, and a Map
// that is deleted from and added to on every request reallocates its table there again and again:
// under load that was a full collection every two seconds and a p99 five times a bare server's
// (docs/benchmarks.md, "The Content API"). A read here only marks its entry; the Map changes when
// an entry is added, or when a full map sweeps.
interface Slot<V> {
  value: V;
  /** Read since the sweep last passed it (or since it was added). */
  used: boolean;
}

export class BoundedMap<K, V> {
  readonly maxEntries: number;
  private readonly entries = new Map<K, Slot<V>>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be a whole number of at least 1, not ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, marked as used. */
  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  set(key: K, value: V): void {
    const slot = this.entries.get(key);
    if (slot !== undefined) {
      slot.value = value;
      slot.used = true;
      return;
    }
    // Room first, so that the new entry is never the one swept out.
    if (this.entries.size >= this.maxEntries) this.dropOne();
    this.entries.set(key, { value, used: false });
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Drops the oldest entry not used since the sweep last passed it; used ones go to the end, unmarked. */
  private dropOne(): void {
    // Ends within two passes: every entry passed once is unmarked when it is passed again.
    for (const [key, slot] of this.entries) {
      this.entries.delete(key);
      if (!slot.used) return;
      slot.used = false;
      this.entries.set(key, slot);
    }
  }
}
