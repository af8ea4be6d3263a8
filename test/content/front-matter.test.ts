// Only YAML front matter is ever read: other languages are problems with a place, never code to run.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { splitFrontMatter } from '../../src/content/front-matter.ts';
import { loadContent } from '../../src/content/load-content.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

/** Front matter that, run as JavaScript, writes `marker` and says published. */
function jsFrontMatter(tag: string, marker: string): string {
  return `---${tag}\n{ title: "T", status: (require("fs").writeFileSync(${JSON.stringify(marker)}, "ran"), "published") }\n---\n\nBody.\n`;
}

const settings = () => ({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://x' });

describe('front matter languages', () => {
  it.each(['js', 'javascript', 'JS ', 'coffee', 'json', 'toml'])(
    '`---%s` is a problem at line 1, and nothing is run',
    async (tag) => {
      p = createTempProject();
      writeSite(p, 'site');
      const marker = path.join(p.root, 'ran');
      p.write('site/articles/evil.md', jsFrontMatter(tag, marker));
      p.write('site/articles/fine.md', article({ title: 'Fine', status: 'published' }));
      const result = await buildExport(settings());
      expect(fs.existsSync(marker)).toBe(false);
      expect(result.ok).toBe(false);
      const found = result.issues.filter((i) => i.file.endsWith('evil.md'));
      expect(found.map((i) => [i.code, i.line])).toEqual([['CONTENT_FRONTMATTER_LANGUAGE', 1]]);
    },
  );

  it('reads `---yaml` and `---yml` as YAML', async () => {
    p = createTempProject();
    writeSite(p, 'site');
    p.write('site/articles/a.md', '---yaml\ntitle: A\n---\nBody\n');
    p.write('site/articles/b.md', '---yml\ntitle: B\n---\nBody\n');
    const { issues, sites } = await loadContent(p.contentDir);
    expect(issues).toEqual([]);
    expect(sites[0]!.articles.map((a) => a.meta.title)).toEqual(['A', 'B']);
  });

  it('does not run an old revision read from git either', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'site');
    const marker = path.join(p.root, 'ran');
    p.write('site/articles/story.md', jsFrontMatter('js', marker));
    p.commit('old version', '2026-01-01T00:00:00Z');
    p.write('site/articles/story.md', article({ title: 'Story', status: 'published' }));
    p.commit('now YAML', '2026-02-01T00:00:00Z');
    const result = await buildExport(settings());
    expect(result.issues).toEqual([]);
    expect(fs.existsSync(marker)).toBe(false);
    // The old version was not read as published: publishedAt is the YAML version's commit.
    const body = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site/articles/story.json'), 'utf8'));
    expect(body.publishedAt).toBe('2026-02-01T00:00:00Z');
  });

  it('splits like before: body after the closing line, positions kept', () => {
    expect(splitFrontMatter('f', 'no front matter\n')).toEqual({
      ok: true,
      yaml: '',
      body: 'no front matter\n',
      bodyLine: 1,
    });
    expect(splitFrontMatter('f', '----\nnot front matter\n')).toMatchObject({ ok: true, yaml: '', bodyLine: 1 });
    expect(splitFrontMatter('f', '---\ntitle: A\n---\n\nBody\n')).toEqual({
      ok: true,
      yaml: '\ntitle: A',
      body: '\nBody\n',
      bodyLine: 4,
    });
    expect(splitFrontMatter('f', '---\r\ntitle: A\r\n---\r\nBody\r\n')).toMatchObject({
      ok: true,
      body: 'Body\r\n',
      bodyLine: 4,
    });
  });

  it('an unclosed front matter is one problem at line 1', () => {
    const split = splitFrontMatter('f', '---\ntitle: A\n\nBody without the closing line\n');
    expect(split.ok).toBe(false);
    expect(!split.ok && [split.problem.code, split.problem.line]).toEqual(['CONTENT_FRONTMATTER_UNCLOSED', 1]);
  });
});
