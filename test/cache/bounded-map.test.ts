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

describe('BoundedMap: which entry makes room', () => {
  it('keeps entries read since they were added, and drops the oldest unread one', () => {
    const map = new BoundedMap<string, number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.get('a');
    map.get('b');
    map.set('d', 4); // a and b were read: c, the oldest unread, goes
    expect(map.get('c')).toBeUndefined();
    expect([map.get('a'), map.get('b'), map.get('d')]).toEqual([1, 2, 4]);
    expect(map.size).toBe(3);
  });

  it('drops the oldest when every entry was read, and an update keeps the entry', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10); // updated, so used
    map.get('b');
    map.set('c', 3); // both used: the sweep unmarks both, then drops the oldest (a)
    expect(map.get('a')).toBeUndefined();
    expect(map.get('b')).toBe(2);
    expect(map.get('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('stays within its bound whatever mix of reads and writes it sees', () => {
    const map = new BoundedMap<number, number>(16);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const k = next() % 64;
      if (next() % 2) map.set(k, i);
      else map.get(k);
      expect(map.size).toBeLessThanOrEqual(16);
    }
  });
});
