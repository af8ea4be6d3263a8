// A site's articles.json made and cut without a JSON parser (src/export/list-body.ts): made, it is
// byte for byte what JSON.stringify gives; cut, it gives back each item's bytes as they stand,
// whatever the items hold; and a body no build wrote is not cut at all.
import { describe, expect, it } from 'vitest';
import { listBody, listBodyParts, listItemSpans, splitListItems } from '../../src/export/list-body.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const site = { name: 'Field "Notes"', lang: 'en' };
const items = [
  { slug: 'first', title: 'First', excerpt: 'Plain.' },
  // Text that looks like an item boundary: inside a JSON string its quotes are escaped.
  { slug: 'tricky', title: '},{"slug":"fake', excerpt: 'A "quoted" ]} end' },
  { slug: 'unicode', title: 'Grüße ☃ 𝄞', excerpt: '\u2028 line separator' },
];
const itemBytes = items.map((i) => encoder.encode(JSON.stringify(i)));
const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));

describe('a list body', () => {
  it('is byte for byte JSON.stringify({site, total, articles})', () => {
    expect(decoder.decode(listBody(site, itemBytes))).toBe(JSON.stringify({ site, total: 3, articles: items }));
    expect(decoder.decode(listBody(site, []))).toBe(JSON.stringify({ site, total: 0, articles: [] }));
  });

  it('of a page names the total of the whole list', () => {
    expect(decoder.decode(listBody(site, itemBytes.slice(1, 2), 42))).toBe(
      JSON.stringify({ site, total: 42, articles: [items[1]] }),
    );
  });

  it('takes only the name and language of the site', () => {
    const body = JSON.parse(decoder.decode(listBody({ ...site, url: 'https://x.example' } as typeof site, itemBytes)));
    expect(body.site).toEqual(site);
  });

  it('in parts is the same bytes as whole', () => {
    expect(concat(listBodyParts(site, itemBytes))).toEqual(Buffer.from(listBody(site, itemBytes)));
    expect(concat(listBodyParts(site, itemBytes, 9))).toEqual(Buffer.from(listBody(site, itemBytes, 9)));
  });

  it('places each item at the span listItemSpans gives', () => {
    const body = listBody(site, itemBytes);
    const spans = listItemSpans(site, itemBytes);
    expect(spans).toHaveLength(2 * items.length);
    items.forEach((item, i) =>
      expect(JSON.parse(decoder.decode(body.subarray(spans[2 * i], spans[2 * i + 1])))).toEqual(item),
    );
  });
});

describe('cutting a list body into its items', () => {
  it('gives each item by slug, in order, as the bytes that stand in the body', () => {
    const cut = splitListItems(listBody(site, itemBytes))!;
    expect([...cut.keys()]).toEqual(['first', 'tricky', 'unicode']);
    [...cut.values()].forEach((bytes, i) => expect(Buffer.from(bytes)).toEqual(Buffer.from(itemBytes[i]!)));
  });

  it('and joining them again gives the same body', () => {
    const body = listBody(site, itemBytes);
    expect(Buffer.from(listBody(site, [...splitListItems(body)!.values()]))).toEqual(Buffer.from(body));
  });

  it('of a single item and of an empty list', () => {
    expect([...splitListItems(listBody(site, itemBytes.slice(0, 1)))!.keys()]).toEqual(['first']);
    expect(splitListItems(listBody(site, []))!.size).toBe(0);
  });

  it('is refused (null) for a body no build wrote: the site is then built in full', () => {
    const body = listBody(site, itemBytes);
    for (const bytes of [
      encoder.encode('{}'),
      encoder.encode('not json'),
      encoder.encode(JSON.stringify({ site, total: 1, articles: [{ title: 'no slug first', slug: 'a' }] })),
      body.subarray(0, body.length - 1), // torn: the closing brace is missing
      body.subarray(0, body.length - 10),
    ]) {
      expect(splitListItems(bytes), decoder.decode(bytes).slice(-30)).toBeNull();
    }
  });
});
