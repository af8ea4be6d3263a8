import { describe, expect, it } from 'vitest';
import { listBody, splitListItems } from '../../src/build/list-items.ts';

const site = { name: 'Site "quoted" ☃', lang: 'en' };
const item = (slug: string, excerpt: string) => ({ slug, title: `T ${slug}`, metaDescription: null, excerpt, lang: 'en', publishedAt: '2026-01-01T00:00:00Z', updatedAt: null, imageUrl: null, imageAlt: null });

describe('list items', () => {
  it('are cut from a list body at item boundaries only, whatever the strings hold', () => {
    const items = [
      item('a', 'plain'),
      item('b', '},{"slug":"fake","title":"x"}'), // the boundary sequence, inside a string
      item('c', 'back\\slash \\" and "quotes" and \u2028 and 🐧 and </script>'),
      item('d-2', '"articles":[{"slug":"z"'),
      item('e', 'ends with a backslash \\'),
    ];
    const body = Buffer.from(JSON.stringify({ site, total: items.length, articles: items }));
    const split = splitListItems(body)!;
    expect([...split.keys()]).toEqual(['a', 'b', 'c', 'd-2', 'e']);
    for (const it of items) expect(JSON.parse(Buffer.from(split.get(it.slug)!).toString())).toEqual(it);
    expect(listBody(site, [...split.values()]).equals(body)).toBe(true);
  });

  it('reassemble exactly what JSON.stringify gives, empty lists included', () => {
    const empty = Buffer.from(JSON.stringify({ site, total: 0, articles: [] }));
    expect(splitListItems(empty)!.size).toBe(0);
    expect(listBody(site, []).equals(empty)).toBe(true);
    const one = [item('only', 'x')];
    expect(listBody(site, one.map((i) => Buffer.from(JSON.stringify(i)))).toString()).toBe(JSON.stringify({ site, total: 1, articles: one }));
  });

  it('refuse a body this build did not write', () => {
    expect(splitListItems(Buffer.from('{"articles":[{"title":"no slug first"}]}'))).toBeNull();
    expect(splitListItems(Buffer.from('{"site":{},"total":1,"articles":[{"slug":"a"}'))).toBeNull(); // torn
    expect(splitListItems(Buffer.from('not json'))).toBeNull();
  });
});
