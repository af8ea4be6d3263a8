// patches/micromark-util-chunked+*.patch: micromark's `splice` and `push` (every resolver's
// edit of an event list goes through them) append item by item or spread the items into one
// `Array#splice`, instead of copying them into a new argument array and shifting it first. The
// lists they leave must be the ones the stock functions leave: the stock code is copied here.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { push, splice } from 'micromark-util-chunked';
import { describe, expect, it } from 'vitest';

/** micromark-util-chunked's `splice` as published. */
function stockSplice<T>(list: T[], start: number, remove: number, items: T[]): void {
  const end = list.length;
  let chunkStart = 0;
  let parameters: unknown[];
  if (start < 0) start = -start > end ? 0 : end + start;
  else start = Math.min(start, end);
  remove = Math.max(remove, 0);
  if (items.length < 10000) {
    parameters = Array.from(items);
    parameters.unshift(start, remove);
    (list.splice as (...args: unknown[]) => T[])(...parameters);
  } else {
    if (remove) list.splice(start, remove);
    while (chunkStart < items.length) {
      parameters = items.slice(chunkStart, chunkStart + 10000);
      parameters.unshift(start, 0);
      (list.splice as (...args: unknown[]) => T[])(...parameters);
      chunkStart += 10000;
      start += 10000;
    }
  }
}

function stockPush<T>(list: T[], items: T[]): T[] {
  if (list.length > 0) {
    stockSplice(list, list.length, 0, items);
    return list;
  }
  return items;
}

describe('micromark-util-chunked patch', () => {
  it('is applied', () => {
    const entryDir = path.dirname(createRequire(import.meta.url).resolve('micromark-util-chunked')); // dev/ or not
    const root = path.basename(entryDir) === 'dev' ? path.dirname(entryDir) : entryDir;
    for (const build of ['index.js', 'dev/index.js']) {
      expect(fs.readFileSync(path.join(root, build), 'utf8'), build).toContain('list.splice(start, remove, ...items)');
    }
  });

  it('leaves the lists the stock functions leave, on 5,000 seeded random edits', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const int = (n: number) => Math.floor(random() * n);
    const list = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    for (let i = 0; i < 5_000; i++) {
      const size = int(3) === 0 ? 0 : int(40);
      const start = int(size * 2 + 3) - size - 1; // negative, in range, past the end
      const remove = int(12) - 2;
      const items = int(4) === 0 ? [] : list(int(200) === 0 ? 10_000 + int(15_000) : int(30), 'new');
      const stock = list(size, 'old');
      const patched = list(size, 'old');
      stockSplice(stock, start, remove, items);
      splice(patched, start, remove, items);
      expect(patched, JSON.stringify({ size, start, remove, items: items.length })).toEqual(stock);
      const stockList = list(size, 'old');
      const patchedList = list(size, 'old');
      const stockResult = stockPush(stockList, items);
      const patchedResult = push(patchedList, items);
      expect(patchedResult).toEqual(stockResult);
      expect(patchedResult === items).toBe(stockResult === items);
    }
  });

  it('appends a list to itself as the stock function does', () => {
    const stock = ['a', 'b'];
    const patched = ['a', 'b'];
    stockSplice(stock, 2, 0, stock);
    splice(patched, 2, 0, patched);
    expect(patched).toEqual(stock);
  });
});
