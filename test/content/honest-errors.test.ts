// Every problem of every file in one run, one message per fault, paths relative to where you are.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { formatIssue } from '../../src/content/issues.ts';
import { runCli } from '../helpers/run-cli.ts';
import { createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

async function printed(): Promise<string[]> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://x',
  });
  return result.issues.map((i) => formatIssue(i, p.root).split('\n')[0]!);
}

describe('build problems, all at once', () => {
  it('site.yaml problems hide no article problem, and a file without a title still has its cross-file problems', async () => {
    p = createTempProject();
    p.write('s/site.yaml', 'name: S\nlang: english\nurl: https://s.example\n');
    p.write(
      's/articles/a.md',
      '---\nstatus: published\npublishedAt: yesterday\nauthor: zed\nimage: gone.png\nrelated: [nope]\n---\n\n![x](../images/missing.png)\n',
    );
    p.write('s/articles/b.md', '---\ntitle: B\nkind: podcast\n---\n');
    const lines = await printed();
    const codes = lines.map((l) => l.replace(/  .*\[/, ' ['));
    expect(codes).toEqual([
      'content/s/articles/a.md:1:1 [CONTENT_FIELD_REQUIRED]',
      'content/s/articles/a.md:3:14 [CONTENT_DATE_INVALID]',
      'content/s/articles/a.md:4:9 [CONTENT_AUTHOR_UNKNOWN]',
      'content/s/articles/a.md:5:8 [CONTENT_IMAGE_MISSING]',
      'content/s/articles/a.md:6:11 [CONTENT_RELATED_UNKNOWN]',
      'content/s/articles/a.md:9:1 [CONTENT_IMAGE_MISSING]',
      'content/s/articles/b.md:3:7 [CONTENT_KIND_UNKNOWN]',
      'content/s/site.yaml:2:7 [CONTENT_LANG_INVALID]',
    ]);
  });

  it('a site folder without site.yaml still has its articles checked', async () => {
    p = createTempProject();
    p.write('nosite/articles/a.md', '---\ntitle: A\nstatus: live\n---\n');
    expect(await printed()).toEqual([
      'content/nosite/articles/a.md:3:9  unknown status "live"  [CONTENT_STATUS_UNKNOWN]',
      'content/nosite/site.yaml:1:1  site "nosite" has no site.yaml  [CONTENT_SITE_CONFIG_MISSING]',
    ]);
  });

  it.each([
    [
      'an author file with problems, cited by articles',
      {
        's/authors/ada.yaml': 'bio: no name\n',
        's/authors/bob.yaml': 'name: [broken\n',
        's/articles/a.md': '---\ntitle: A\nauthor: ada\n---\n',
        's/articles/b.md': '---\ntitle: B\nauthor: bob\n---\n',
      },
      [
        'content/s/authors/ada.yaml:1:1 [CONTENT_FIELD_REQUIRED]',
        'content/s/authors/bob.yaml:2:1 [CONTENT_YAML_INVALID]',
      ],
    ],
    [
      'an article that cannot be read, named as related',
      {
        's/articles/broken.md': '---\ntitle: [unclosed\n---\n',
        's/articles/a.md': '---\ntitle: A\nrelated: [broken, missing]\n---\n',
      },
      [
        'content/s/articles/a.md:3:19 [CONTENT_RELATED_UNKNOWN]',
        'content/s/articles/broken.md:2:17 [CONTENT_YAML_INVALID]',
      ],
    ],
  ])('%s is one problem, not one more in every file that refers to it', async (_label, files, expected) => {
    p = createTempProject();
    writeSite(p, 's');
    for (const [rel, text] of Object.entries(files)) p.write(rel, text);
    expect((await printed()).map((l) => l.replace(/  .*\[/, ' ['))).toEqual(expected);
  });

  it("one YAML typo is one problem, with the parser's message and no dangling position", async () => {
    p = createTempProject();
    writeSite(p, 's');
    p.write('s/articles/typo.md', '---\ntitle: Hello: world\nstatus: draft\nkind: standard\n---\nBody\n');
    expect(await printed()).toEqual([
      'content/s/articles/typo.md:2:8  malformed YAML: Nested mappings are not allowed in compact mappings  [CONTENT_YAML_INVALID]',
    ]);
  });

  it('the command line prints no absolute path', async () => {
    p = createTempProject();
    writeSite(p, 's');
    p.write('s/articles/one.md', '---\ntitle: One\nslug: same\n---\n');
    p.write('s/articles/two.md', '---\ntitle: Two\nslug: same\n---\n');
    const r = await runCli(
      ['build'],
      { QUIRE_CONTENT_DIR: 'content', QUIRE_DIST_DIR: 'dist', QUIRE_STATE_DIR: '.quire' },
      p.root,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'content/s/articles/two.md:3:7  slug "same" is used by two articles (the other: content/s/articles/one.md:3:7)  [CONTENT_SLUG_DUPLICATE]',
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain(path.dirname(p.contentDir));
  });
});
