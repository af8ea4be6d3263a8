// The bytes of a site's articles.json, made and cut without a JSON parser: the build writes it
// from its items' bytes and a rebuild cuts the previous one into its items to copy unchanged
// ones through as they are (parsing and re-serializing a large site's list was a good part of a
// one-change rebuild: docs/benchmarks-log.md, "figures first recorded in code comments"); the API
// makes a filtered page's body the same way. Plain Uint8Arrays, no Buffer: the edge Worker uses
// this too.

/** slug → the item's JSON bytes as they stand in articles.json. */
export type ListItems = Map<string, Uint8Array>;

// Every item is serialized with `slug` first. Inside a JSON string a quote is always escaped,
// so this byte sequence can only be the boundary between two items.
const encoder = new TextEncoder();
const FIRST = encoder.encode('"articles":[{"slug":"');
const NEXT = encoder.encode('},{"slug":"');
const EMPTY = encoder.encode('"articles":[]}');
const QUOTE = 0x22;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Where `needle` first stands in `bytes` at or after `from`; -1 when nowhere (Buffer#indexOf, on any Uint8Array). */
function indexOfBytes(bytes: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  for (
    let at = bytes.indexOf(first, from);
    at >= 0 && at + needle.length <= bytes.length;
    at = bytes.indexOf(first, at + 1)
  ) {
    let i = 1;
    while (i < needle.length && bytes[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

/** The bytes from `start` to `end` as text, one character per byte (slugs are ASCII). */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
  return text;
}

/** The parts joined into one array. */
function concatBytes(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The items of a list body; null when it is not one this build wrote (then the site is built in full). */
export function splitListItems(bytes: Uint8Array): ListItems | null {
  const items: ListItems = new Map();
  const first = indexOfBytes(bytes, FIRST);
  if (first < 0) return indexOfBytes(bytes, EMPTY) >= 0 ? items : null;
  if (bytes[bytes.length - 2] !== CLOSE_BRACKET || bytes[bytes.length - 1] !== CLOSE_BRACE) return null;
  let start = first + FIRST.length - '{"slug":"'.length;
  while (start >= 0) {
    const slugStart = start + '{"slug":"'.length;
    const slugEnd = bytes.indexOf(QUOTE, slugStart);
    const next = indexOfBytes(bytes, NEXT, slugEnd);
    const end = next < 0 ? bytes.length - 2 : next + 1;
    if (slugEnd < 0 || end <= slugEnd) return null;
    items.set(latin1(bytes, slugStart, slugEnd), bytes.subarray(start, end));
    start = next < 0 ? -1 : next + 2;
  }
  return items;
}

/**
 * Byte for byte what JSON.stringify({site, total, articles}) gives for these items; `total` is
 * their number unless a page of a longer list is given.
 */
export function listBody(site: { name: string; lang: string }, items: Uint8Array[], total = items.length): Uint8Array {
  return concatBytes(listBodyParts(site, items, total));
}

/**
 * listBody() as the pieces it is made of, for writing and hashing without first copying a large
 * site's list into one buffer.
 */
export function listBodyParts(
  site: { name: string; lang: string },
  items: Uint8Array[],
  total = items.length,
): Uint8Array[] {
  const parts: Uint8Array[] = [listHead(site, total)];
  items.forEach((item, i) => {
    if (i) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(END);
  return parts;
}

/** Where each item stands in listBody(site, items): [start, end) byte offsets, flattened. */
export function listItemSpans(site: { name: string; lang: string }, items: Uint8Array[]): number[] {
  const spans: number[] = [];
  let at = listHead(site, items.length).length;
  for (const item of items) {
    spans.push(at, at + item.length);
    at += item.length + COMMA.length;
  }
  return spans;
}

const listHead = (site: { name: string; lang: string }, total: number) =>
  encoder.encode(`{"site":${JSON.stringify({ name: site.name, lang: site.lang })},"total":${total},"articles":[`);
const COMMA = encoder.encode(',');
const END = encoder.encode(']}');
