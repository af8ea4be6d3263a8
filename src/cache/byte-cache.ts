// A cache of immutable byte arrays by name, bounded by their total size (least recently used out
// first): the edge Worker's objects (src/edge/export-reader.ts).
export function createByteCache(maxBytes: number) {
  const entries = new Map<string, Uint8Array>();
  let total = 0;
  return {
    get(key: string): Uint8Array | undefined {
      const value = entries.get(key);
      if (value) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: Uint8Array): void {
      if (value.length > maxBytes || entries.has(key)) return;
      entries.set(key, value);
      total += value.length;
      for (const [oldest, bytes] of entries) {
        if (total <= maxBytes) break;
        entries.delete(oldest);
        total -= bytes.length;
      }
    },
  };
}
