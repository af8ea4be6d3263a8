import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  articleFile,
  articleFiles,
  assetPath,
  assetUrl,
  contentTypeOf,
  encodedFile,
  hashInImageName,
  imageFile,
  imageName,
  isAssetPath,
  listFile,
  listIndexFile,
  MANIFEST_FILE,
  parseAssetPath,
  siteFiles,
  siteTreeFiles,
  treeFiles,
} from '../../src/export/layout.ts';

describe('dist/ layout', () => {
  it("names the manifest, a site's list and its index, bodies, images and their compressed variants", () => {
    expect(MANIFEST_FILE).toBe('manifest.json');
    expect(listFile('one')).toBe('one/articles.json');
    expect(listIndexFile('one')).toBe('one/articles.index.json');
    expect(articleFile('one', 'hello-world')).toBe('one/articles/hello-world.json');
    expect(imageFile('one', 'd/pic.ab.png')).toBe('one/images/d/pic.ab.png');
    expect(encodedFile('one/articles.json', 'br')).toBe('one/articles.json.br');
    expect(encodedFile('one/articles/a.json', 'gzip')).toBe('one/articles/a.json.gz');
    expect(siteFiles('one')).toEqual(['one/articles.json', 'one/articles.index.json']);
    expect(siteFiles('one', ['br', 'gzip'])).toEqual([
      'one/articles.json',
      'one/articles.json.br',
      'one/articles.json.gz',
      'one/articles.index.json',
    ]);
    expect(articleFiles('one', 'a')).toEqual(['one/articles/a.json']);
    expect(articleFiles('one', 'a', ['gzip'])).toEqual(['one/articles/a.json', 'one/articles/a.json.gz']);
  });

  it('names the compressed variants the manifest lists, site by site', () => {
    const site = {
      listEncodings: ['br'] as const,
      articles: { a: { encodings: ['br', 'gzip'] as const }, b: {} },
      images: {},
    };
    expect(siteTreeFiles('one', site).sort()).toEqual(
      [
        'one/articles.json',
        'one/articles.json.br',
        'one/articles.index.json',
        'one/articles/a.json',
        'one/articles/a.json.br',
        'one/articles/a.json.gz',
        'one/articles/b.json',
      ].sort(),
    );
    expect(treeFiles({ sites: { one: site, two: { articles: {}, images: {} } } }).sort()).toEqual(
      [...siteTreeFiles('one', site), 'two/articles.json', 'two/articles.index.json'].sort(),
    );
  });

  it('serves images with the type of their extension, in any case', () => {
    expect(contentTypeOf('a/b.abc.PNG')).toBe('image/png');
    expect(contentTypeOf('x.h.jpeg')).toBe('image/jpeg');
    expect(contentTypeOf('x.h.jpg')).toBe('image/jpeg');
    expect(contentTypeOf('x.h.svg')).toBe('image/svg+xml');
    expect(contentTypeOf('x.h.webp')).toBe('image/webp');
    expect(contentTypeOf('x.h.html')).toBe('application/octet-stream');
    expect(contentTypeOf('d.png/noext')).toBe('application/octet-stream');
  });

  it('names every file of a tree from its manifest', () => {
    const tree = {
      sites: {
        one: { articles: { a: {}, b: {} }, images: { 'images/x.png': 'x.0123.png', 'images/d/y.jpg': 'd/y.4567.jpg' } },
      },
    };
    expect(treeFiles(tree).sort()).toEqual(
      [
        'one/articles.json',
        'one/articles.index.json',
        'one/articles/a.json',
        'one/articles/b.json',
        'one/images/x.0123.png',
        'one/images/d/y.4567.jpg',
      ].sort(),
    );
  });

  it('names images by their path and hash, the extension lower-cased, as node:path sees extensions', () => {
    expect(imageName('photos/Cover.PNG', 'abc')).toBe('photos/Cover.abc.png');
    expect(imageName('a.b/noext', 'abc')).toBe('a.b/noext.abc');
    for (const rel of ['x.png', 'd/.hidden', 'd/.hidden.gif', 'trailing.', 'a.b.c.jpeg', 'd.x/plain']) {
      const ext = path.posix.extname(rel);
      expect(imageName(rel, 'h')).toBe(`${rel.slice(0, rel.length - ext.length)}.h${ext.toLowerCase()}`);
    }
    expect(hashInImageName('photos/Cover.abc.png')).toBe('abc');
    expect(hashInImageName('dir.v2/plain')).toBeUndefined();
  });
});

describe('asset URLs', () => {
  const names = [
    'cover.0123456789abcdef.png',
    'sub/dir/pic.0123.jpg',
    'space and ümlaut ☃.ab.png',
    'q?uery#frag%25.ab.svg',
    'a+b&c=d.ab.webp',
  ];

  it('parse back to the site and name they were made from', () => {
    for (const name of names) {
      const url = assetUrl('https://api.example.com/base', 'my-site', name);
      expect(url.startsWith('https://api.example.com/base/assets/my-site/')).toBe(true);
      // What the server sees: the path as the URL parser leaves it, without the public URL's own path.
      const sent = new URL(url).pathname.slice('/base'.length);
      expect(sent).toBe(assetPath('my-site', name));
      expect(parseAssetPath(sent)).toEqual({ siteId: 'my-site', name });
      expect(isAssetPath(sent)).toBe(true);
    }
  });

  it('read an encoded slash in the name as a separator, as the route did', () => {
    expect(parseAssetPath('/assets/one/sub%2Fpic.ab.png')).toEqual({ siteId: 'one', name: 'sub/pic.ab.png' });
  });

  it('refuse paths that climb out or are not asset paths', () => {
    for (const p of [
      '/assets/one/..%2F..%2Fmanifest.json',
      '/assets/one/../manifest.json',
      '/assets/one/%2E%2E/manifest.json',
      '/assets/one/a/./b.png',
      '/assets/one/a//b.png',
      '/assets/one/',
      '/assets/one',
      '/assets/..%2Fother/x.png',
      '/assets/on%2Fe/x.png',
      '/assets/one/a%5C..%5Cb.png',
      '/assets/one/a%00.png',
      '/assets/one/%E0%A4%A.png',
      '/v1/articles/x',
      '/assetsx/one/x.png',
    ]) {
      expect(parseAssetPath(p), p).toBeNull();
    }
    expect(isAssetPath('/assets/')).toBe(false);
    expect(isAssetPath('/assets')).toBe(false);
  });
});
