// One bad file is that file's problem, with its place: limits on size, YAML work and nesting.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { createFileBudget, walkFiles } from '../../src/content/content-files.ts';
import { formatIssue, type ContentIssue } from '../../src/content/issues.ts';
import { CONTENT_LIMITS } from '../../src/content/limits.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

/** Builds a site holding `bad.md` and a file with an ordinary problem; returns every problem, by file. */
async function build(
  bad: string,
  before: (proj: TempProject) => void = () => {},
): Promise<{ bad: ContentIssue[]; other: ContentIssue[]; ok: boolean; all: ContentIssue[] }> {
  p = createTempProject();
  writeSite(p, 'site');
  before(p);
  p.write('site/articles/good.md', article({ title: 'Good', status: 'published' }));
  p.write('site/articles/other.md', article({ title: 'Other', kind: 'podcast' }));
  p.write('site/articles/bad.md', bad);
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  const of = (name: string) => result.issues.filter((i) => path.basename(i.file) === name);
  return { bad: of('bad.md'), other: of('other.md'), ok: result.ok, all: result.issues };
}

const codesAndLines = (issues: ContentIssue[]) => issues.map((i) => [i.code, i.line]);

describe('limits on one file', () => {
  it('an article larger than the limit is refused unread', async () => {
    const r = await build(
      article({ title: 'Big', status: 'published' }, 'word '.repeat(CONTENT_LIMITS.articleBytes / 5 + 10)),
    );
    expect(codesAndLines(r.bad)).toEqual([['CONTENT_TOO_LARGE', 1]]);
    expect(r.other.map((i) => i.code)).toEqual(['CONTENT_KIND_UNKNOWN']);
  });

  it('an image larger than the limit is one problem, never read, and articles using it are not told it is missing', async () => {
    const r = await build(
      '---\ntitle: A\nstatus: published\nimage: huge.png\n---\n\n![map](../images/huge.png)\n',
      (proj) => {
        const file = proj.write('site/images/huge.png', '');
        fs.truncateSync(file, CONTENT_LIMITS.imageBytes + 1); // sparse: no 20 MB written
      },
    );
    expect(
      r.all.filter((i) => i.severity === 'error').map((i) => [path.relative(p.contentDir, i.file), i.code]),
    ).toEqual([
      ['site/articles/other.md', 'CONTENT_KIND_UNKNOWN'],
      ['site/images/huge.png', 'CONTENT_TOO_LARGE'],
    ]);
  });

  it('front matter larger than the limit is refused', async () => {
    const r = await build(`---\ntitle: A\nmetaDescription: ${'x'.repeat(CONTENT_LIMITS.yamlBytes)}\n---\nBody\n`);
    expect(codesAndLines(r.bad)).toEqual([['CONTENT_TOO_LARGE', 1]]);
  });

  it('a YAML alias bomb is a problem at its field, and the other files are still checked', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const r = await build(`---\ntitle: Bomb\n${levels.join('\n')}\n---\nBody\n`);
    expect(r.bad.map((i) => i.code)).toEqual(['CONTENT_YAML_TOO_COMPLEX']);
    expect(r.bad[0]!.line).toBeGreaterThan(2);
    expect(r.other.map((i) => i.code)).toEqual(['CONTENT_KIND_UNKNOWN']);
  });

  it('thousands of aliases are refused at the first one past the limit, without resolving them', async () => {
    const fields = Array.from({ length: 3000 }, (_, i) => `f${i}: *t`);
    const r = await build(`---\ntitle: &t Many\n${fields.join('\n')}\n---\nBody\n`);
    expect(codesAndLines(r.bad)).toEqual([['CONTENT_YAML_TOO_COMPLEX', 3 + CONTENT_LIMITS.yamlAliases]]);
  });

  it.each([
    ['a 10,000-deep block quote', `${'>'.repeat(10_000)} deep\n`, 5],
    ['a 10,000-deep list', `${'- '.repeat(10_000)}deep\n`, 5],
    [
      'a list nested by indentation',
      Array.from({ length: 300 }, (_, i) => `${' '.repeat(i * 2)}- item`).join('\n'),
      5 + CONTENT_LIMITS.nestingDepth,
    ],
    ['deep emphasis', `${'*'.repeat(10_000)}x${'*'.repeat(10_000)}\n`, 5],
    ['deep HTML', `${'<div>'.repeat(10_000)}x${'</div>'.repeat(10_000)}\n`, 5],
    ['deep inline HTML', `text ${'<span>'.repeat(5_000)}x\n`, 5],
  ])('%s is a problem at its line, and the other files are still checked', async (_label, body, line) => {
    const r = await build(`---\ntitle: Deep\nstatus: published\n---\n${body}`);
    expect(r.bad.map((i) => i.code)).toEqual(['CONTENT_TOO_DEEP']);
    expect(r.bad[0]!.line).toBeGreaterThanOrEqual(5);
    expect(r.bad[0]!.line).toBeLessThanOrEqual(line + 1);
    expect(r.other.map((i) => i.code)).toEqual(['CONTENT_KIND_UNKNOWN']);
    expect(r.ok).toBe(false);
  });

  it('ordinary nesting, code full of asterisks and long rules are fine', async () => {
    const body = [
      '> quote',
      '> > nested',
      '',
      '- a',
      '  - b',
      '    - c',
      '',
      '```c',
      `/${'*'.repeat(300)}/`,
      '```',
      '',
      '_'.repeat(300),
      '',
      `    ${'*'.repeat(300)}`,
      '',
      '<div><section><p>html</p></section></div>',
      '',
    ].join('\n');
    const r = await build(`---\ntitle: Fine\nstatus: published\n---\n${body}`);
    expect(r.bad).toEqual([]);
  });

  it('the walk stops at the file limit with one problem', async () => {
    p = createTempProject();
    for (let i = 0; i < 5; i++) p.write(`site/articles/a${i}.md`, 'x');
    const issues: ContentIssue[] = [];
    const files = await walkFiles(path.join(p.contentDir, 'site/articles'), issues, createFileBudget(3));
    expect(files).toHaveLength(3);
    expect(issues.map((i) => i.code)).toEqual(['CONTENT_TOO_MANY_FILES']);
  });

  it('folders count against the file limit too', async () => {
    p = createTempProject();
    fs.mkdirSync(path.join(p.contentDir, 'site/articles/a/b/c/d/e'), { recursive: true });
    const issues: ContentIssue[] = [];
    await walkFiles(path.join(p.contentDir, 'site/articles'), issues, createFileBudget(3));
    expect(issues.map((i) => i.code)).toEqual(['CONTENT_TOO_MANY_FILES']);
  });
});

describe('many unknown fields', () => {
  it('warn ten times and then once for the rest', async () => {
    const fields = Array.from({ length: 500 }, (_, i) => `extra${i}: x`);
    const r = await build(`---\ntitle: A\n${fields.join('\n')}\n---\nBody\n`);
    expect(r.bad).toHaveLength(11);
    expect(r.bad.at(-1)).toMatchObject({
      line: 13,
      severity: 'warning',
      message: '490 more unknown fields from here on',
    });
  });
});

describe('control characters in front matter', () => {
  it('are refused at the field, never passed on to the API', async () => {
    const r = await build(
      '---\ntitle: "A\\0title"\nstatus: published\nrelated: ["good", "b\\u001b[31m"]\nexcerpt: "tab\\tand\\nline breaks are fine"\n---\nBody\n',
    );
    expect(codesAndLines(r.bad)).toEqual([
      ['CONTENT_CONTROL_CHARACTER', 2],
      ['CONTENT_CONTROL_CHARACTER', 4],
    ]);
    expect(r.bad[0]!.message).toContain('U+0000');
  });

  it('are shown escaped when a problem is printed', () => {
    const printed = formatIssue(
      {
        file: '/x/a.md',
        line: 1,
        column: 1,
        code: 'CONTENT_STATUS_UNKNOWN',
        severity: 'error',
        message: 'unknown status "\u001b[2Jx"',
      },
      '/x',
    );
    expect(printed).toBe('a.md:1:1  unknown status "\\u001b[2Jx"  [CONTENT_STATUS_UNKNOWN]');
  });
});
