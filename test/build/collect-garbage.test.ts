// collectGarbage must really collect: it is what keeps a large build's main-thread heap small.
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/build/collect-garbage.ts';

describe('collectGarbage', () => {
  it('frees unreachable objects at once, without the --expose-gc flag', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let garbage: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` }));
    const withGarbage = process.memoryUsage().heapUsed;
    expect(withGarbage - before).toBeGreaterThan(10 * 2 ** 20);
    garbage = null;
    collectGarbage();
    expect(garbage).toBeNull();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 2 ** 20);
  });
});
