import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/content/issues.ts';
import { loadContent } from '../../src/content/load-content.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

function project(): TempProject {
  p = createTempProject();
  writeSite(p, 'site');
  p.write('site/authors/ada.yaml', 'name: Ada\n');
  p.write('site/images/real.png', 'png');
  return p;
}

async function problems() {
  const { issues } = await loadContent(p.contentDir);
  return issues.map((i) => ({ ...i, file: path.relative(p.contentDir, i.file), text: formatIssue(i, p.contentDir) }));
}

describe('content problems name file, line, column and code', () => {
  it.each([
    ['malformed YAML', '---\ntitle: A\nstatus: published\nrelated: [a, b\n---\nbody\n', 'CONTENT_YAML_INVALID', 4],
    ['a tab-indented mapping', '---\ntitle: A\n\tstatus: published\n---\n', 'CONTENT_YAML_INVALID', 3],
    ['a missing title', '---\nstatus: published\n---\nbody\n', 'CONTENT_FIELD_REQUIRED', 1],
    ['an empty title', '---\ntitle: ""\n---\n', 'CONTENT_FIELD_REQUIRED', 2],
    ['a title that is a list', '---\ntitle: [a, b]\n---\n', 'CONTENT_FIELD_TYPE', 2],
    ['a bad slug', '---\ntitle: A\nslug: Not A Slug\n---\n', 'CONTENT_SLUG_INVALID', 3],
    ['an unknown kind', '---\ntitle: A\nkind: podcast\n---\n', 'CONTENT_KIND_UNKNOWN', 3],
    ['an unknown status', '---\ntitle: A\nstatus: live\n---\n', 'CONTENT_STATUS_UNKNOWN', 3],
    ['a bad date', '---\ntitle: A\nstatus: published\npublishedAt: 2026-02-30\n---\n', 'CONTENT_DATE_INVALID', 4],
    ['a date that is not a date', '---\ntitle: A\nupdatedAt: last tuesday\n---\n', 'CONTENT_DATE_INVALID', 3],
    ['an unknown author', '---\ntitle: A\nauthor: zed\n---\n', 'CONTENT_AUTHOR_UNKNOWN', 3],
    [
      'an unknown related slug',
      '---\ntitle: A\nrelated:\n  - ok-one\n  - missing-one\n---\n',
      'CONTENT_RELATED_UNKNOWN',
      5,
    ],
    ['a missing front matter image', '---\ntitle: A\nimage: nope.png\n---\n', 'CONTENT_IMAGE_MISSING', 3],
    ['an image outside images/', '---\ntitle: A\nimage: ../../site.yaml\n---\n', 'CONTENT_IMAGE_OUTSIDE', 3],
    ['an http image URL', '---\ntitle: A\nimage: http://cdn.example.com/a.png\n---\n', 'CONTENT_URL_INVALID', 3],
    ['a bad sourceUrl', '---\ntitle: A\nsourceUrl: not a url\n---\n', 'CONTENT_URL_INVALID', 3],
    ['a bad lang', '---\ntitle: A\nlang: english please\n---\n', 'CONTENT_LANG_INVALID', 3],
    ['a missing body image', '---\ntitle: A\n---\n\nText\n\n![x](../images/gone.png)\n', 'CONTENT_IMAGE_MISSING', 7],
  ])('%s', async (_label, text, code, line) => {
    project();
    p.write('site/articles/ok-one.md', article({ title: 'OK' }));
    p.write('site/articles/bad.md', text);
    const { issues, sites } = await loadContent(p.contentDir);
    let all = issues;
    if (!all.some((i) => i.code === code)) {
      // Render-time problems (body images) come from the build.
      const { buildExport } = await import('../../src/compile/build.ts');
      all = (
        await buildExport({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://x' })
      ).issues;
    }
    const found = all.find((i) => i.code === code);
    expect(found, JSON.stringify(all)).toBeDefined();
    expect(found!.file).toBe(path.join(p.contentDir, 'site/articles/bad.md'));
    expect(found!.line).toBe(line);
    expect(found!.column).toBeGreaterThanOrEqual(1);
    expect(found!.severity).toBe('error');
    expect(formatIssue(found!, p.contentDir)).toMatch(
      new RegExp(`^site/articles/bad\\.md:${line}:\\d+  .+  \\[${code}\\]`),
    );
    expect(sites).toHaveLength(1);
  });

  it('names both files of a duplicate slug', async () => {
    project();
    p.write('site/articles/one.md', article({ title: 'One', slug: 'same' }));
    p.write('site/articles/sub/two.md', article({ title: 'Two', slug: 'same' }));
    const found = (await problems()).filter((i) => i.code === 'CONTENT_SLUG_DUPLICATE');
    expect(found).toHaveLength(1);
    expect(found[0]!.file).toBe('site/articles/sub/two.md');
    expect(found[0]!.line).toBe(3);
    expect(found[0]!.other).toEqual({ file: path.join(p.contentDir, 'site/articles/one.md'), line: 3, column: 7 });
    expect(found[0]!.text).toMatch(
      /^site\/articles\/sub\/two\.md:3:7  slug "same" is used by two articles \(the other: site\/articles\/one\.md:3:7\)/,
    );
    expect(found[0]!.message).not.toContain(p.root);
  });

  it('treats a file-name slug collision as a duplicate too', async () => {
    project();
    p.write('site/articles/a/post.md', article({ title: 'One' }));
    p.write('site/articles/b/Post.md', article({ title: 'Two' }));
    expect((await problems()).map((i) => i.code)).toContain('CONTENT_SLUG_DUPLICATE');
  });

  it('collects every problem at once, in file order', async () => {
    project();
    p.write('site/articles/a.md', '---\nstatus: published\n---\n');
    p.write('site/articles/b.md', '---\ntitle: B\nkind: nope\nauthor: zed\n---\n');
    const codes = (await problems()).map((i) => `${i.file}:${i.code}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'site/articles/a.md:CONTENT_FIELD_REQUIRED',
        'site/articles/b.md:CONTENT_KIND_UNKNOWN',
        'site/articles/b.md:CONTENT_AUTHOR_UNKNOWN',
      ]),
    );
  });

  it('warns about unknown fields with a suggestion, without failing', async () => {
    project();
    p.write('site/articles/a.md', '---\ntitle: A\ntitel: oops\nstauts: published\n---\n');
    const found = (await problems()).filter((i) => i.code === 'CONTENT_FIELD_UNKNOWN');
    expect(found.map((i) => [i.line, i.severity, i.hint])).toEqual([
      [3, 'warning', 'did you mean `title`?'],
      [4, 'warning', 'did you mean `status`?'],
    ]);
  });

  it('checks site.yaml, site ids and author files', async () => {
    p = createTempProject();
    p.write('Bad.Site/site.yaml', 'name: x\nlang: en\nurl: https://x.example\n');
    p.write('nosite/articles/a.md', article({ title: 'A' }));
    p.write('s/site.yaml', 'name: S\nlang: en\nurl: ftp://s.example\n');
    p.write('t/site.yaml', 'name: T\nlang: en\nurl: https://t.example\n');
    p.write('t/authors/Not_Valid.yaml', 'name: X\n');
    p.write('t/authors/nameless.yaml', 'bio: no name\n');
    const codes = (await problems()).map((i) => `${i.file}:${i.line}:${i.code}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'Bad.Site:1:CONTENT_SITE_ID_INVALID',
        'nosite/site.yaml:1:CONTENT_SITE_CONFIG_MISSING',
        's/site.yaml:3:CONTENT_URL_INVALID',
        't/authors/Not_Valid.yaml:1:CONTENT_AUTHOR_ID_INVALID',
        't/authors/nameless.yaml:1:CONTENT_FIELD_REQUIRED',
      ]),
    );
  });

  it('reads slugs from file names, and a valid tree has no problems', async () => {
    project();
    p.write(
      'site/articles/2026/Hello World!.md',
      article({ title: 'Hello', author: 'ada', image: 'real.png', related: '[other]' }),
    );
    p.write('site/articles/other.md', article({ title: 'Other', status: 'published', image: 'images/real.png' }));
    p.write('site/articles/Crème Brûlée.md', article({ title: 'Dessert' }));
    const { issues, sites } = await loadContent(p.contentDir);
    expect(issues).toEqual([]);
    expect(sites[0]!.articles.map((a) => a.meta.slug).sort()).toEqual(['creme-brulee', 'hello-world', 'other']);
  });

  it('refuses a file that is not UTF-8', async () => {
    project();
    p.write('site/articles/latin1.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x74, 0x3a, 0xe9, 0x0a]));
    expect((await problems()).map((i) => i.code)).toContain('CONTENT_ENCODING_INVALID');
  });
});

describe('change watch', () => {
  it('says once that many articles are new or changed, and not when nothing changed', async () => {
    project();
    for (let i = 0; i < 5; i++) p.write(`site/articles/a${i}.md`, article({ title: `A ${i}` }, 'body\n'));
    const cache = new Map();
    let told = 0;
    const watch = { threshold: 3, onManyChanged: () => told++ };
    await loadContent(p.contentDir, cache, watch);
    expect(told).toBe(1);
    await loadContent(p.contentDir, cache, watch);
    expect(told).toBe(1);
    p.write('site/articles/a1.md', article({ title: 'A 1 again' }, 'body\n'));
    await loadContent(p.contentDir, cache, watch);
    expect(told).toBe(1); // one change is under the threshold
  });
});
