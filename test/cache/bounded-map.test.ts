import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/cache/bounded-map.ts';

describe('BoundedMap', () => {
  it('never holds more than its bound, dropping the least recently used entry', () => {
    const map = new BoundedMap<string, number>(3);
    for (let i = 0; i < 10_000; i++) map.set(`k${i}`, i);
    expect(map.size).toBe(3);
    expect(map.get('k9997')).toBe(9997);
    map.set('new', 1); // k9998 is now the oldest
    expect(map.get('k9998')).toBeUndefined();
    expect(map.get('k9997')).toBe(9997);
    expect(map.get('k9999')).toBe(9999);
  });

  it('refuses a bound that is not a positive whole number', () => {
    expect(() => new BoundedMap(0)).toThrow(RangeError);
    expect(() => new BoundedMap(1.5)).toThrow(RangeError);
  });
});
