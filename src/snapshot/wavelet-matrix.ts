// A wavelet matrix: a sequence of whole numbers below 2^bits kept as one bit vector per bit,
// with rank counts. Built once in time proportional to length × bits; afterwards the k-th
// smallest value among the first `end` entries takes one step per bit, whatever the length.
// The filtered article list uses it to page "updated since T" in list order without visiting
// every article (filtered-list.ts).

interface Level {
  /** Bit of each entry at this level, 32 to a word. */
  words: Uint32Array;
  /** ones[w]: 1-bits in the words before w. */
  ones: Uint32Array;
  /** 0-bits at this level: where the 1-side starts in the next level. */
  zeros: number;
}

export class WaveletMatrix {
  readonly length: number;
  private readonly levels: Level[] = [];

  /** `values`: whole numbers from 0 to `bound` - 1. */
  constructor(values: ArrayLike<number>, bound: number) {
    this.length = values.length;
    const bits = Math.max(1, Math.ceil(Math.log2(Math.max(2, bound))));
    let current = Int32Array.from(values);
    for (let bit = bits - 1; bit >= 0; bit--) {
      const words = new Uint32Array((current.length >>> 5) + 1);
      const zeroSide: number[] = [];
      const oneSide: number[] = [];
      for (let i = 0; i < current.length; i++) {
        const v = current[i]!;
        if ((v >>> bit) & 1) {
          words[i >>> 5] = words[i >>> 5]! | (1 << (i & 31));
          oneSide.push(v);
        } else zeroSide.push(v);
      }
      const ones = new Uint32Array(words.length);
      for (let w = 1; w < words.length; w++) ones[w] = ones[w - 1]! + popcount(words[w - 1]!);
      this.levels.push({ words, ones, zeros: zeroSide.length });
      current = Int32Array.from([...zeroSide, ...oneSide]); // stable: each side keeps its order
    }
  }

  /** The k-th smallest (k from 0) of the first `end` values. */
  kthSmallest(end: number, k: number): number {
    if (!(end >= 0 && end <= this.length && k >= 0 && k < end))
      throw new RangeError(`no ${k}-th value among the first ${end}`);
    let from = 0;
    let to = end;
    let value = 0;
    for (const level of this.levels) {
      const onesBefore = rank1(level, from);
      const onesUpTo = rank1(level, to);
      const zerosInRange = to - from - (onesUpTo - onesBefore);
      value <<= 1;
      if (k < zerosInRange) {
        from -= onesBefore;
        to -= onesUpTo;
      } else {
        k -= zerosInRange;
        value |= 1;
        from = level.zeros + onesBefore;
        to = level.zeros + onesUpTo;
      }
    }
    return value;
  }
}

/** 1-bits among the first i entries of a level. */
function rank1(level: Level, i: number): number {
  const w = i >>> 5;
  const bit = i & 31;
  return level.ones[w]! + (bit === 0 ? 0 : popcount(level.words[w]! & (0xffffffff >>> (32 - bit))));
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
