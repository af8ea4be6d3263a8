// The checks editors asked for, as builds report them: warnings at their place, never a failed
// build, told again by a build that changes nothing, and kept true when another article changes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport, type BuildResult } from '../../src/compile/build.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const build = () =>
  buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://x' });

/** `file:line:col CODE`, the file from the site folder. */
const found = (result: BuildResult) =>
  result.issues.map((i) => `${i.file.slice(p.contentDir.length + 1)}:${i.line}:${i.column} ${i.code} ${i.severity}`);

function site(articlePath = '/articles/{slug}/'): void {
  p = createTempProject();
  p.write('s/site.yaml', `name: S\nlang: en\nurl: https://s.example.com\narticlePath: ${articlePath}\n`);
  p.write('s/images/a.png', 'png');
}

describe('links to articles of the same site', () => {
  it('are checked in both forms, as file links and in the articlePath form; other links are not', async () => {
    site();
    p.write('s/articles/y.md', article({ title: 'Y', status: 'published' }));
    p.write('s/articles/z.md', article({ title: 'Z' }, '[back](x.md) and [gone](gone.md)\n'));
    const body = [
      '[file](y.md) [url](/articles/y/) [no slash](/articles/y) [root file](/articles/y.md) [query](y.md?x=1#top)',
      '[absolute](https://s.example.com/articles/missing/)',
      '[other host](https://other.example.com/articles/missing/) [readme](../../README.md) [page](/about)',
      '[mail](mailto:a@s.example.com) [in page](#top) [not a slug](/articles/Feed.XML)',
      '[folder](guides/none.md)',
      '[a draft](z.md) [a **draft** by url](https://s.example.com/articles/z)',
      '<a href="/articles/nothing-here/">html</a>',
    ].join('\n\n');
    p.write('s/articles/x.md', article({ title: 'X', status: 'published' }, `${body}\n`));
    const result = await build();
    expect(result.ok).toBe(true); // warnings only
    expect(result.written).toBe(true);
    expect(found(result)).toEqual([
      's/articles/x.md:8:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/x.md:14:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/x.md:16:1 CONTENT_LINK_DRAFT warning',
      's/articles/x.md:16:17 CONTENT_LINK_DRAFT warning',
      's/articles/x.md:18:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/z.md:5:18 CONTENT_LINK_UNKNOWN warning', // a draft's link to nothing is told, to a draft is not
    ]);
    expect(result.issues[0]!.message).toBe(
      'link "absolute" (https://s.example.com/articles/missing/) leads to no article of site "s" (the slug "missing")',
    );
    expect(result.issues[1]!.message).toBe(
      'link "folder" (guides/none.md) leads to no article of site "s" (articles/guides/none.md)',
    );
    expect(result.issues[3]!.message).toContain(
      'link "a draft by url" (https://s.example.com/articles/z) leads to "z", a draft',
    );

    // A build that changes nothing tells the same again.
    const again = await build();
    expect(again.written).toBe(false);
    expect(found(again)).toEqual(found(result));

    // z published: x is taken over unrendered, and its links are checked against the site as it is now.
    p.write('s/articles/z.md', article({ title: 'Z', status: 'published' }, '[back](x.md) and [gone](gone.md)\n'));
    const published = await build();
    expect(published.stats.rendered).toBe(1);
    expect(found(published)).toEqual([
      's/articles/x.md:8:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/x.md:14:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/x.md:18:1 CONTENT_LINK_UNKNOWN warning',
      's/articles/z.md:6:18 CONTENT_LINK_UNKNOWN warning', // a line lower: status added
    ]);

    // y removed: x's links to it now lead nowhere, x still unrendered.
    p.remove('s/articles/y.md');
    const removed = await build();
    expect(removed.stats.rendered).toBe(0);
    expect(found(removed).filter((line) => line.startsWith('s/articles/x.md:6:'))).toHaveLength(5);
  });

  it('are named where the files are after the project moved with its dist/ and state dir', async () => {
    p = createTempProject(); // no image: a copied file's time may differ, and the inputs with it
    p.write('s/site.yaml', 'name: S\nlang: en\nurl: https://s.example.com\n');
    p.write('s/articles/x.md', article({ title: 'X', status: 'published' }, '[gone](gone.md)\n'));
    p.write('s/articles/d.md', article({ title: 'D' }));
    expect(found(await build())).toEqual(['s/articles/x.md:6:1 CONTENT_LINK_UNKNOWN warning']);
    const moved = `${p.root}-moved`;
    fs.cpSync(p.root, moved, { recursive: true, preserveTimestamps: true });
    try {
      const there = await buildExport({
        contentDir: path.join(moved, 'content'),
        distDir: path.join(moved, 'dist'),
        stateDir: path.join(moved, '.quire'),
        publicUrl: 'http://x',
      });
      expect(there.issues.map((i) => i.file)).toEqual([path.join(moved, 'content/s/articles/x.md')]);
    } finally {
      fs.rmSync(moved, { recursive: true, force: true });
    }
  });

  it('in the articlePath form are not read when articlePath is only {slug}: every page would be an article', async () => {
    site('/{slug}');
    p.write(
      's/articles/x.md',
      article({ title: 'X' }, '[about](/about) [abs](https://s.example.com/contact) [file](gone.md)\n'),
    );
    expect(found(await build())).toEqual(['s/articles/x.md:5:54 CONTENT_LINK_UNKNOWN warning']);
  });
});

describe('images without alt text', () => {
  it('are told for Markdown images with empty alt and HTML images with no alt attribute, not for alt=""', async () => {
    site();
    const body = [
      '![](../images/a.png) ![Map](../images/a.png) ![ ][ref]',
      '<img src="../images/a.png"> <img alt="" src="../images/a.png">',
      '[ref]: ../images/a.png',
    ].join('\n\n');
    p.write('s/articles/x.md', article({ title: 'X', status: 'published' }, `${body}\n`));
    const result = await build();
    expect(result.ok).toBe(true);
    expect(found(result)).toEqual([
      's/articles/x.md:6:1 CONTENT_IMAGE_ALT_MISSING warning',
      's/articles/x.md:6:46 CONTENT_IMAGE_ALT_MISSING warning',
      's/articles/x.md:8:1 CONTENT_IMAGE_ALT_MISSING warning',
    ]);
  });
});

describe('a long metaDescription', () => {
  it('is a warning past 160 characters, at its value, counted in characters', async () => {
    site();
    p.write('s/articles/ok.md', article({ title: 'Ok', metaDescription: 'é'.repeat(160) }));
    p.write('s/articles/long.md', article({ title: 'Long', metaDescription: 'é'.repeat(161) }));
    const result = await build();
    expect(result.ok).toBe(true);
    expect(found(result)).toEqual(['s/articles/long.md:3:18 CONTENT_META_DESCRIPTION_LONG warning']);
    expect(result.issues[0]!.message).toBe(
      '`metaDescription` is 161 characters; search engines show about 160 and cut the rest',
    );
  });
});

describe('related drafts', () => {
  it('are a warning in a published article, not in a draft', async () => {
    site();
    p.write('s/articles/d.md', article({ title: 'D' }));
    p.write('s/articles/pub.md', article({ title: 'P', status: 'published', related: '[d]' }));
    p.write('s/articles/draft.md', article({ title: 'Q', related: '[d]' }));
    const result = await build();
    expect(result.ok).toBe(true);
    expect(found(result)).toEqual(['s/articles/pub.md:4:11 CONTENT_RELATED_DRAFT warning']);
  });
});
