// A site's list index (src/export/list-index.ts): made at build time, the positions of each kind's
// items in list order and by updatedAt (newest first, undated last); read back, checked against
// the list it belongs to, so that a torn or foreign index never answers with wrong bytes.
import { describe, expect, it } from 'vitest';
import { ALL_KINDS, makeListIndex, parseListIndex, type ListIndex } from '../../src/export/list-index.ts';

const FILE = 'dist/one/articles.index.json';
// In list order (newest published first); updatedAt in another order.
const items = [
  { kind: 'standard', updatedAt: '2026-03-01T00:00:00Z' },
  { kind: 'news', updatedAt: '2026-05-01T00:00:00Z' },
  { kind: 'standard', updatedAt: null },
  { kind: 'news', updatedAt: '2026-05-01T00:00:00Z' }, // the same instant as position 1
  { kind: 'standard', updatedAt: '2026-04-01T00:00:00Z' },
];
const spans = [10, 20, 21, 30, 31, 40, 41, 50, 51, 60];
const index = makeListIndex('list-hash', items, spans);
const list = { hash: 'list-hash', bytes: 62, count: items.length };

/** The index's JSON with `change` made to a copy of it. */
const altered = (change: (i: ListIndex) => void): string => {
  const copy = structuredClone(index);
  change(copy);
  return JSON.stringify(copy);
};

describe('making a list index', () => {
  it("keeps the list's hash, spans and updatedAt, item for item", () => {
    expect(index.listHash).toBe('list-hash');
    expect(index.spans).toEqual(spans);
    expect(index.updatedAt).toEqual(items.map((i) => i.updatedAt));
  });

  it('groups positions by kind in list order, and all of them under ALL_KINDS', () => {
    expect(index.byKind).toEqual({ [ALL_KINDS]: [0, 1, 2, 3, 4], standard: [0, 2, 4], news: [1, 3] });
  });

  it('orders each group by updatedAt, newest first, ties in list order, undated last', () => {
    expect(index.byUpdate).toEqual({ [ALL_KINDS]: [1, 3, 4, 0, 2], standard: [4, 0, 2], news: [1, 3] });
  });
});

describe('reading a list index', () => {
  it('gives back the index made for the list', () => {
    expect(parseListIndex(JSON.stringify(index), FILE, list)).toEqual(index);
  });

  it('refuses, naming the file and what is wrong, one that does not fit its list', () => {
    const cases: [string, string, typeof list?][] = [
      ['{"format":1,', 'not JSON'],
      ['null', 'not a list index of format 1'],
      [altered((i) => ((i as { format: number }).format = 2)), 'not a list index of format 1'],
      [JSON.stringify(index), 'belongs to another articles.json', { ...list, hash: 'other-hash' }],
      [JSON.stringify(index), '`spans` does not fit the list', { ...list, count: 4 }],
      [JSON.stringify(index), '`spans` does not fit the list', { ...list, bytes: 59 }],
      [altered((i) => (i.spans[3] = 1.5)), '`spans` does not fit the list'],
      [altered((i) => (i.spans[0] = -1)), '`spans` does not fit the list'],
      [altered((i) => i.updatedAt.pop()), '`updatedAt` does not fit the list'],
      [altered((i) => ((i.updatedAt as unknown[])[0] = 5)), '`updatedAt` does not fit the list'],
      [altered((i) => delete (i as Partial<ListIndex>).byUpdate), '`byUpdate` is missing'],
      [altered((i) => (i.byKind.essay = [0])), '`byKind` has an unknown kind "essay"'],
      [altered((i) => (i.byKind.news = [1, 5])), '`byKind.news` has a position outside the list'],
      [altered((i) => (i.byUpdate.news = [1, -1])), '`byUpdate.news` has a position outside the list'],
      [altered((i) => (i.byUpdate.standard = [4, 0])), '`byKind.standard` and `byUpdate.standard` differ in length'],
    ];
    for (const [text, why, against] of cases) {
      expect(() => parseListIndex(text, FILE, against ?? list), why).toThrow(`${FILE}: ${why}`);
    }
  });
});
