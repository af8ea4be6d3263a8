// What a tree patched from the spare must lose (src/export/writer/removed-files.ts): the files of
// the previous build's tree that the next manifest no longer names, compressed variants included.
import { describe, expect, it } from 'vitest';
import type { ContentCoding } from '../../../src/export/layout.ts';
import type { Manifest, ManifestArticle, ManifestSite } from '../../../src/export/manifest.ts';
import { removedFiles } from '../../../src/export/writer/removed-files.ts';

const articleWith = (encodings?: ContentCoding[]) => ({ ...(encodings ? { encodings } : {}) }) as ManifestArticle;
const siteWith = (
  articles: Record<string, ManifestArticle>,
  images: Record<string, string>,
  listEncodings?: ContentCoding[],
) => ({ articles, images, ...(listEncodings ? { listEncodings } : {}) }) as ManifestSite;
const manifestWith = (sites: Record<string, ManifestSite>) => ({ sites }) as Manifest;

describe('removedFiles', () => {
  it('names what the next tree lacks: articles, variants, images, a list variant, a whole site', () => {
    const previous = manifestWith({
      one: siteWith(
        { kept: articleWith(['br', 'gzip']), gone: articleWith() },
        { 'a.png': 'a.1.png', 'b.png': 'b.2.png' },
        ['br'],
      ),
      two: siteWith({ only: articleWith(['br']) }, { 'c.png': 'c.3.png' }, ['br', 'gzip']),
    });
    const next = manifestWith({ one: siteWith({ kept: articleWith(['br']) }, { 'a.png': 'a.1.png' }) });
    expect(removedFiles(previous, next).sort()).toEqual(
      [
        'one/articles/kept.json.gz',
        'one/articles/gone.json',
        'one/images/b.2.png',
        'one/articles.json.br',
        'two/articles/only.json',
        'two/articles/only.json.br',
        'two/images/c.3.png',
        'two/articles.json',
        'two/articles.json.br',
        'two/articles.json.gz',
        'two/articles.index.json',
      ].sort(),
    );
  });

  it('names nothing when the trees hold the same files', () => {
    const same = manifestWith({ one: siteWith({ a: articleWith(['br']) }, { 'a.png': 'a.1.png' }, ['gzip']) });
    expect(removedFiles(same, same)).toEqual([]);
  });
});
