// dist/<site>/articles.index.json: what filtered and paged lists need, worked out at build time
// so that no request costs time in proportion to the site's size. For the items of
// articles.json, in list order (newest first): where each item's bytes stand, its updatedAt,
// the positions of each kind's items, and each kind's positions by updatedAt, newest first.
// This module owns what the file holds, how it is made and checked when read (its place is in
// layout.ts).
import { ARTICLE_KINDS } from '../content/model.ts';

const FORMAT = 1;
/** The key of the group of all items, beside one group per kind. */
export const ALL_KINDS = '*';

export interface ListIndex {
  format: typeof FORMAT;
  /** Hash of the articles.json it describes (the manifest's listHash). */
  listHash: string;
  /** Item i's bytes in articles.json are [spans[2i], spans[2i + 1]). */
  spans: number[];
  /** Item i's updatedAt. */
  updatedAt: (string | null)[];
  /** Kind (or ALL_KINDS) → positions of its items, in list order. */
  byKind: Record<string, number[]>;
  /** Kind (or ALL_KINDS) → positions of its items by updatedAt, newest first (no date last). */
  byUpdate: Record<string, number[]>;
}

export interface IndexedItem {
  kind: string;
  updatedAt: string | null;
}

/** The index of a list whose items, in list order, stand at `spans`. */
export function makeListIndex(listHash: string, items: IndexedItem[], spans: number[]): ListIndex {
  const byKind: Record<string, number[]> = { [ALL_KINDS]: items.map((_, i) => i) };
  items.forEach((item, i) => (byKind[item.kind] ??= []).push(i));
  const byUpdate: Record<string, number[]> = {};
  const newestUpdate = (a: number, b: number) =>
    compareDesc(items[a]!.updatedAt ?? '', items[b]!.updatedAt ?? '') || a - b;
  for (const [kind, positions] of Object.entries(byKind)) byUpdate[kind] = [...positions].sort(newestUpdate);
  return { format: FORMAT, listHash, spans, updatedAt: items.map((i) => i.updatedAt), byKind, byUpdate };
}

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/**
 * Parses and checks an index against the list it belongs to; throws, naming `file`, when it is
 * not one (a torn or foreign file must not answer queries with wrong bytes).
 */
export function parseListIndex(
  text: string,
  file: string,
  list: { hash: string; bytes: number; count: number },
): ListIndex {
  const fail = (why: string): never => {
    throw new Error(`${file}: ${why}; rebuild with \`npm run build\``);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON; rebuild with \`npm run build\``, { cause: err });
  }
  const index = data as ListIndex;
  if (typeof data !== 'object' || data === null || index.format !== FORMAT)
    fail(`not a list index of format ${FORMAT}`);
  if (index.listHash !== list.hash) fail('belongs to another articles.json');
  const n = list.count;
  if (
    !Array.isArray(index.spans) ||
    index.spans.length !== 2 * n ||
    !index.spans.every((s) => Number.isInteger(s) && s >= 0 && s <= list.bytes)
  )
    fail('`spans` does not fit the list');
  if (
    !Array.isArray(index.updatedAt) ||
    index.updatedAt.length !== n ||
    !index.updatedAt.every((u) => u === null || typeof u === 'string')
  )
    fail('`updatedAt` does not fit the list');
  const groups = [ALL_KINDS, ...ARTICLE_KINDS];
  for (const field of ['byKind', 'byUpdate'] as const) {
    const record = index[field];
    if (typeof record !== 'object' || record === null) fail(`\`${field}\` is missing`);
    for (const [kind, positions] of Object.entries(record)) {
      if (!groups.includes(kind)) fail(`\`${field}\` has an unknown kind ${JSON.stringify(kind)}`);
      if (!Array.isArray(positions) || !positions.every((p) => Number.isInteger(p) && p >= 0 && p < n))
        fail(`\`${field}.${kind}\` has a position outside the list`);
      if ((index.byKind[kind]?.length ?? -1) !== positions.length)
        fail(`\`byKind.${kind}\` and \`byUpdate.${kind}\` differ in length`);
    }
  }
  return index;
}
