import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportWriter } from '../../src/export/writer/export-writer.ts';
import { listBody, listBodyParts, splitListItems } from '../../src/export/list-body.ts';
import { hashBytes, hashParts } from '../../src/export/content-hash.ts';
import { MANIFEST_FORMAT } from '../../src/export/manifest.ts';

const site = { name: 'Site "quoted" ☃', lang: 'en' };
const item = (slug: string, excerpt: string) => ({
  slug,
  title: `T ${slug}`,
  metaDescription: null,
  excerpt,
  lang: 'en',
  publishedAt: '2026-01-01T00:00:00Z',
  updatedAt: null,
  imageUrl: null,
  imageAlt: null,
});

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
    expect(Buffer.from(listBody(site, [...split.values()])).equals(body)).toBe(true);
  });

  it('reassemble exactly what JSON.stringify gives, empty lists included', () => {
    const empty = Buffer.from(JSON.stringify({ site, total: 0, articles: [] }));
    expect(splitListItems(empty)!.size).toBe(0);
    expect(Buffer.from(listBody(site, [])).equals(empty)).toBe(true);
    const one = [item('only', 'x')];
    expect(
      Buffer.from(
        listBody(
          site,
          one.map((i) => Buffer.from(JSON.stringify(i))),
        ),
      ).toString(),
    ).toBe(JSON.stringify({ site, total: 1, articles: one }));
  });

  it('refuse a body this build did not write', () => {
    expect(splitListItems(Buffer.from('{"articles":[{"title":"no slug first"}]}'))).toBeNull();
    expect(splitListItems(Buffer.from('{"site":{},"total":1,"articles":[{"slug":"a"}'))).toBeNull(); // torn
    expect(splitListItems(Buffer.from('not json'))).toBeNull();
  });

  it('written and hashed in pieces give the bytes and hash of the whole list, past the pieces one writev takes', async () => {
    const items = Array.from({ length: 3000 }, (_, i) =>
      Buffer.from(JSON.stringify(item(`s-${i}`, 'é'.repeat(i % 7)))),
    );
    const parts = listBodyParts(site, items);
    const whole = listBody(site, items);
    expect(parts.length).toBeGreaterThan(1024);
    expect(hashParts(parts)).toBe(hashBytes(whole));
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-list-'));
    try {
      const writer = new ExportWriter(path.join(root, 'dist'));
      writer.writeParts('articles.json', parts);
      await writer.commit({
        format: MANIFEST_FORMAT,
        buildId: 'b',
        builtAt: '2026-01-01T00:00:00Z',
        renderer: 'r',
        publicUrl: 'https://x.example',
        inputs: 'b',
        sites: {},
      });
      expect(fs.readFileSync(path.join(root, 'dist', 'articles.json')).equals(whole)).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
