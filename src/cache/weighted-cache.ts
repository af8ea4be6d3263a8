// A cache bounded by its number of entries and by their total weight (bytes, told once known):
// the least recently used go first. A many-site bucket cannot fill an isolate's memory (the edge
// Worker's sites and the bodies it cuts, src/edge/export-reader.ts).
export function createWeightedCache<V>(maxEntries: number, maxWeight: number) {
  const entries = new Map<string, { value: V; weight: number }>();
  let total = 0;
  const drop = (key: string) => {
    const held = entries.get(key);
    if (!held) return false;
    entries.delete(key);
    total -= held.weight;
    return true;
  };
  const evict = () => {
    for (const oldest of entries.keys()) {
      if (entries.size <= 1 || (entries.size <= maxEntries && total <= maxWeight)) break;
      drop(oldest);
    }
  };
  return {
    get(key: string): V | undefined {
      const held = entries.get(key);
      if (!held) return undefined;
      entries.delete(key);
      entries.set(key, held);
      return held.value;
    },
    set(key: string, value: V): void {
      drop(key);
      entries.set(key, { value, weight: 0 });
      evict();
    },
    /** Tells the weight of an entry once it is known. */
    weigh(key: string, weight: number): void {
      const held = entries.get(key);
      if (!held) return;
      total += weight - held.weight;
      held.weight = weight;
      evict();
    },
    delete: drop,
    get size() {
      return entries.size;
    },
  };
}
