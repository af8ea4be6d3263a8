import { describe, expect, it } from 'vitest';
import { WaveletMatrix } from '../../src/snapshot/wavelet-matrix.ts';
import { seeded } from '../helpers/seeded-random.ts';

describe('WaveletMatrix.kthSmallest', () => {
  it('gives the k-th smallest of every prefix, as sorting the prefix does', () => {
    const random = seeded(7);
    for (const [length, bound] of [
      [1, 1],
      [2, 2],
      [33, 33],
      [100, 7],
      [257, 1000],
      [1000, 1000],
    ] as const) {
      const values = Array.from({ length }, () => Math.floor(random() * bound));
      const matrix = new WaveletMatrix(values, bound);
      for (let end = 1; end <= length; end += Math.max(1, Math.floor(length / 17))) {
        const sorted = values.slice(0, end).sort((a, b) => a - b);
        for (let k = 0; k < end; k += Math.max(1, Math.floor(end / 11)))
          expect(matrix.kthSmallest(end, k)).toBe(sorted[k]);
        expect(matrix.kthSmallest(end, end - 1)).toBe(sorted[end - 1]);
      }
    }
  });

  it('refuses a k outside the prefix', () => {
    const matrix = new WaveletMatrix([3, 1, 2], 4);
    expect(() => matrix.kthSmallest(2, 2)).toThrow(RangeError);
    expect(() => matrix.kthSmallest(4, 0)).toThrow(RangeError);
  });
});
