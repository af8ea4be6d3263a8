// The state store's copy of the API key generations, on the test store (SQLite in a temp state
// dir; PostgreSQL with QUIRE_TEST_STORE=postgres): a recorded generation never goes down, and
// rotations at once, from two processes' stores, each get a generation of their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/store/state-store.ts';
import { openTestStore } from '../helpers/test-store.ts';

const SECRET = 'x'.repeat(40);
let dir: string;
const opened: StateStore[] = [];
const open = () => {
  const store = openTestStore(dir, SECRET);
  opened.push(store);
  return store;
};
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-key-generations-'));
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('key generations in the state store', () => {
  it('a rotation goes one above the higher of the recorded generation and the one held; raising never lowers', async () => {
    const store = open();
    expect(await store.keyGenerations.all()).toEqual({});
    expect(await store.keyGenerations.rotate('one', 1)).toBe(2);
    expect(await store.keyGenerations.rotate('one', 1)).toBe(3); // the store's is higher than the caller's
    expect(await store.keyGenerations.rotate('one', 7)).toBe(8); // the caller's is higher
    expect(await store.keyGenerations.rotate('one.preview', 1)).toBe(2);
    await store.keyGenerations.raise({ one: 4, two: 5, three: 1 });
    expect(await store.keyGenerations.all()).toEqual({ one: 8, 'one.preview': 2, two: 5 });
    // What another process's store (another server on the same state) reads.
    expect(await open().keyGenerations.all()).toEqual({ one: 8, 'one.preview': 2, two: 5 });
  });

  it('rotations at once from two stores each get their own generation', async () => {
    const [a, b] = [open(), open()];
    const got = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).keyGenerations.rotate('one', 1)),
    );
    expect(got.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await a.keyGenerations.all()).toEqual({ one: 21 });
  });
});
