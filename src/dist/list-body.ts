// The bytes of a site's articles.json, made and cut without a JSON parser: the build writes it
// from its items' bytes and a rebuild cuts the previous one into its items to copy unchanged
// ones through as they are (at 10,000 articles, parsing and re-serializing the 5 MB list was a
// tenth of a one-change rebuild); the API makes a filtered page's body the same way.

/** slug → the item's JSON bytes as they stand in articles.json. */
export type ListItems = Map<string, Uint8Array>;

// Every item is serialized with `slug` first. Inside a JSON string a quote is always escaped,
// so this byte sequence can only be the boundary between two items.
const FIRST = Buffer.from('"articles":[{"slug":"');
const NEXT = Buffer.from('},{"slug":"');
const QUOTE = 0x22;

/** The items of a list body; null when it is not one this build wrote (then the site is built in full). */
export function splitListItems(bytes: Buffer): ListItems | null {
  const items: ListItems = new Map();
  const first = bytes.indexOf(FIRST);
  if (first < 0) return bytes.includes('"articles":[]}') ? items : null;
  if (!bytes.subarray(bytes.length - 2).equals(Buffer.from(']}'))) return null;
  let start = first + FIRST.length - '{"slug":"'.length;
  while (start >= 0) {
    const slugStart = start + '{"slug":"'.length;
    const slugEnd = bytes.indexOf(QUOTE, slugStart);
    const next = bytes.indexOf(NEXT, slugEnd);
    const end = next < 0 ? bytes.length - 2 : next + 1;
    if (slugEnd < 0 || end <= slugEnd) return null;
    items.set(bytes.toString('latin1', slugStart, slugEnd), bytes.subarray(start, end));
    start = next < 0 ? -1 : next + 2;
  }
  return items;
}

/**
 * Byte for byte what JSON.stringify({site, total, articles}) gives for these items; `total` is
 * their number unless a page of a longer list is given.
 */
export function listBody(site: { name: string; lang: string }, items: Uint8Array[], total = items.length): Buffer {
  return Buffer.concat(listBodyParts(site, items, total));
}

/**
 * listBody() as the pieces it is made of, for writing and hashing without first copying a large
 * site's list (5 MB at 10,000 articles) into one buffer.
 */
export function listBodyParts(site: { name: string; lang: string }, items: Uint8Array[], total = items.length): Uint8Array[] {
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
  Buffer.from(`{"site":${JSON.stringify({ name: site.name, lang: site.lang })},"total":${total},"articles":[`);
const COMMA = Buffer.from(',');
const END = Buffer.from(']}');
