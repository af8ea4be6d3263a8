// `quire check` as CI runs it: the real command line on a content repository with known problems,
// each format read as its consumer reads it (GitHub's workflow-command grammar, GitLab's Code
// Quality fields, the published SARIF 2.1.0 schema), every path and line checked, nothing written.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, projectFolders, type TempProject } from '../helpers/temp-content.ts';

const addFormats = addFormatsModule as unknown as (ajv: unknown) => void;
const AjvDraft04 = AjvDraft04Module as unknown as typeof Ajv;
const FIXTURES = path.join(import.meta.dirname, '../report/fixtures');

function validator(schemaFile: string, draft04: boolean): ValidateFunction {
  const schema = JSON.parse(fs.readFileSync(path.join(FIXTURES, schemaFile), 'utf8'));
  const ajv = draft04 ? new AjvDraft04({ allErrors: true }) : new Ajv({ allErrors: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** A file name that tries to end a workflow command and start another. */
const FORGING_NAME = 'we,ird:50%\n::error file=forged.md::forged.md';

const LONG_DESCRIPTION = 'A walk along the ridge in winter, '.repeat(5).trim(); // 169 characters

let p: TempProject;
afterEach(() => p?.cleanup());

/** A repository whose content has known problems; `quire check` runs from a folder below its root. */
function projectWithProblems(): { cwd: string; env: Record<string, string> } {
  p = createTempProject({ git: true });
  p.write('s/site.yaml', 'name: S\nlang: en\nurl: https://s.example.com\n');
  p.write('s/images/pic.png', 'png');
  p.write(
    's/articles/a.md',
    article(
      { title: 'A', status: 'published', metaDescription: LONG_DESCRIPTION, related: '[b]' },
      '![](../images/pic.png)\n\nSee [the draft](b.md) and [a lost one](/blog/gone).\n',
    ),
  );
  p.write('s/articles/b.md', article({ title: 'B', status: 'draft' }));
  p.write('s/articles/c.md', article({ status: 'published' }));
  // Withdrawn before git says it was first published (the commit below): a check on git's dates.
  p.write('s/articles/d.md', article({ title: 'D', status: 'published', expiresAt: '2026-01-01' }));
  p.write(`s/articles/${FORGING_NAME}`, article({ title: 'W' }, '![](../images/pic.png)\n'));
  p.commit('content', '2026-01-05T10:00:00Z');
  const cwd = path.join(p.root, 'sub');
  fs.mkdirSync(cwd);
  return { cwd, env: projectFolders(p) };
}

const forgingPath = `content/s/articles/${FORGING_NAME}`;

/** Every problem of projectWithProblems, as [path, line, column, code, severity]. */
const EXPECTED: [string, number, number, string, string][] = [
  ['content/s/articles/a.md', 4, 18, 'CONTENT_META_DESCRIPTION_LONG', 'warning'],
  ['content/s/articles/a.md', 5, 11, 'CONTENT_RELATED_DRAFT', 'warning'],
  ['content/s/articles/a.md', 8, 1, 'CONTENT_IMAGE_ALT_MISSING', 'warning'],
  ['content/s/articles/a.md', 10, 5, 'CONTENT_LINK_DRAFT', 'warning'],
  ['content/s/articles/a.md', 10, 27, 'CONTENT_LINK_UNKNOWN', 'warning'],
  ['content/s/articles/c.md', 1, 1, 'CONTENT_FIELD_REQUIRED', 'error'],
  ['content/s/articles/d.md', 4, 12, 'CONTENT_EXPIRY_BEFORE_PUBLISH', 'error'],
  [forgingPath, 5, 1, 'CONTENT_IMAGE_ALT_MISSING', 'warning'],
];
const sorted = (rows: (string | number)[][]) =>
  [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/**
 * GitHub's grammar for an annotation with a place: `::error` or `::warning`, properties
 * `key=value` joined by `,` (values with `%`, CR, LF, `:` and `,` escaped), `::`, the message
 * (with `%`, CR and LF escaped). Nothing else may be on the line.
 */
const PROPERTY_VALUE = String.raw`(?:[^%\r\n:,]|%25|%0D|%0A|%3A|%2C)*`;
const ANNOTATION = new RegExp(
  String.raw`^::(error|warning) file=(${PROPERTY_VALUE}),line=([1-9]\d*),col=([1-9]\d*),title=(${PROPERTY_VALUE})::((?:[^%\r\n]|%25|%0D|%0A)*)$`,
);
const readBack = (text: string) =>
  text.replace(/%(25|0D|0A|3A|2C)/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('quire check', () => {
  it('prints GitHub workflow commands, errors first, each matching the grammar exactly, a forging file name escaped', async () => {
    const { cwd, env } = projectWithProblems();
    const r = await runCli(['check', '--format', 'github'], env, cwd);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(EXPECTED.length); // no line forged by the file name
    const rows = lines.map((line) => {
      const m = ANNOTATION.exec(line);
      expect(m, line).not.toBeNull();
      return [readBack(m![2]!), Number(m![3]), Number(m![4]), readBack(m![5]!), m![1]!];
    });
    expect(sorted(rows)).toEqual(sorted(EXPECTED));
    expect(rows.map((row) => row[4])).toEqual([...Array(2).fill('error'), ...Array(6).fill('warning')]);
    // The message and what to do, on two lines of the annotation.
    const unknown = lines.find((l) => l.includes('title=CONTENT_LINK_UNKNOWN'))!;
    expect(readBack(ANNOTATION.exec(unknown)![6]!)).toBe(
      'link "a lost one" (/blog/gone) leads to no article of site "s" (the slug "gone")\ncorrect the link to an existing article, or remove it',
    );
    expect(r.stderr).toContain('Checked 5 articles in 1 site: 2 errors, 6 warnings (nothing was written)');
  });

  it('writes a GitLab Code Quality report that validates, with every path and line, and fingerprints that survive moved lines', async () => {
    const { cwd, env } = projectWithProblems();
    const report = path.join(p.root, 'gl-code-quality-report.json');
    const r = await runCli(['check', '--format', 'gitlab', '--output', report], env, cwd);
    expect(r.code).toBe(1);
    // The terminal gets the text report, paths from where it ran.
    expect(r.stdout).toContain(
      '../content/s/articles/c.md:1:1  missing required field `title`  [CONTENT_FIELD_REQUIRED]',
    );
    const issues = JSON.parse(fs.readFileSync(report, 'utf8')) as {
      check_name: string;
      severity: string;
      fingerprint: string;
      description: string;
      location: { path: string; lines: { begin: number } };
    }[];
    const validate = validator('gitlab-code-quality.schema.json', false);
    expect(validate(issues), JSON.stringify(validate.errors)).toBe(true);
    expect(validate([{ ...issues[0], severity: 'error' }])).toBe(false); // the schema can fail
    expect(sorted(issues.map((i) => [i.location.path, i.location.lines.begin, i.check_name, i.severity]))).toEqual(
      sorted(
        EXPECTED.map(([file, line, , code, severity]) => [file, line, code, severity === 'error' ? 'major' : 'minor']),
      ),
    );
    expect(new Set(issues.map((i) => i.fingerprint)).size).toBe(issues.length);

    // Three paragraphs above the problems of a.md's body: they move, and keep their fingerprints.
    const file = path.join(p.contentDir, 's/articles/a.md');
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, 'utf8')
        .replace('![](../images/pic.png)', 'One.\n\nTwo.\n\nThree.\n\n![](../images/pic.png)'),
    );
    const again = await runCli(['check', '--format', 'gitlab'], env, cwd);
    const moved = JSON.parse(again.stdout) as typeof issues;
    const byCode = (list: typeof issues) =>
      Object.fromEntries(list.map((i) => [`${i.location.path} ${i.check_name}`, i]));
    const before = byCode(issues);
    const after = byCode(moved);
    expect(after['content/s/articles/a.md CONTENT_LINK_UNKNOWN']!.location.lines.begin).toBe(16);
    for (const key of Object.keys(before)) expect(after[key]!.fingerprint, key).toBe(before[key]!.fingerprint);
  });

  it('writes SARIF 2.1.0 that validates against the published schema, with every path, line and column', async () => {
    const { cwd, env } = projectWithProblems();
    const r = await runCli(['check', '--format', 'sarif'], env, cwd);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout) as {
      runs: {
        tool: { driver: { name: string; rules: { id: string }[] } };
        results: {
          ruleId: string;
          ruleIndex: number;
          level: string;
          locations: {
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } };
          }[];
        }[];
      }[];
    };
    const validate = validator('sarif-schema-2.1.0.json', true);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...log, runs: [{ ...log.runs[0], results: [{ level: 'fatal' }] }] })).toBe(false); // it can fail
    const [run] = log.runs;
    expect(run!.tool.driver.name).toBe('Quire');
    const rows = run!.results.map((res) => {
      const { artifactLocation, region } = res.locations[0]!.physicalLocation;
      expect(run!.tool.driver.rules[res.ruleIndex]!.id).toBe(res.ruleId);
      return [decodeURIComponent(artifactLocation.uri), region.startLine, region.startColumn, res.ruleId, res.level];
    });
    expect(sorted(rows)).toEqual(sorted(EXPECTED));
    // The file name's characters that mean something in a URI are escaped.
    expect(
      run!.results.some((res) =>
        res.locations[0]!.physicalLocation.artifactLocation.uri.includes('we%2Cird%3A50%25%0A'),
      ),
    ).toBe(true);
  });

  it('gives the problems as JSON, and writes neither dist/ nor the state dir', async () => {
    const { cwd, env } = projectWithProblems();
    const r = await runCli(['check', '--format', 'json'], env, cwd);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      errors: number;
      warnings: number;
      problems: { path: string; line: number; column: number; code: string; severity: string; fix: string }[];
    };
    expect([report.errors, report.warnings]).toEqual([2, 6]);
    expect(sorted(report.problems.map((q) => [q.path, q.line, q.column, q.code, q.severity]))).toEqual(
      sorted(EXPECTED),
    );
    expect(report.problems.every((q) => q.fix.length > 0)).toBe(true);
    expect(fs.existsSync(p.distDir)).toBe(false);
    expect(fs.existsSync(p.stateDir)).toBe(false);
    expect(fs.existsSync(path.join(p.root, '.dist.work'))).toBe(false);
  });

  it('exits 0 with warnings only, and writes nothing beside a build either', async () => {
    const { cwd, env } = projectWithProblems();
    p.remove('s/articles/c.md');
    p.remove('s/articles/d.md');
    // A build first: check reads its state and dist/, and changes neither.
    expect((await runCli(['build'], env, cwd)).code).toBe(0);
    const snapshot = () =>
      fs
        .readdirSync(p.root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && !e.parentPath.includes(`${path.sep}.git`))
        .map((e) => {
          const file = path.join(e.parentPath, e.name);
          return `${file} ${fs.statSync(file).mtimeMs} ${fs.statSync(file).size}`;
        })
        .sort();
    const before = snapshot();
    const r = await runCli(['check'], env, cwd);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Checked 3 articles in 1 site: 0 errors, 6 warnings (nothing was written)');
    expect(r.stdout).toContain('../content/s/articles/a.md:8:1  warning: image "../images/pic.png" has no alt text');
    expect(snapshot()).toEqual(before);
  });

  it('names files from the repository root also when git may not run (a planted repository)', async () => {
    const { cwd, env } = projectWithProblems();
    p.write('s/articles/old/.git', 'gitdir: /somewhere/else\n');
    const r = await runCli(['check', '--format', 'json'], env, cwd);
    const report = JSON.parse(r.stdout) as { problems: { path: string; code: string }[] };
    expect(report.problems).toContainEqual(
      expect.objectContaining({ path: 'content/s/articles/old/.git', code: 'CONTENT_GIT_REPOSITORY' }),
    );
  });

  it('refuses an unknown format with the closest one', async () => {
    const { cwd, env } = projectWithProblems();
    const r = await runCli(['check', '--format', 'gitlba'], env, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown format "gitlba" (did you mean "gitlab"?)');
    expect(r.stderr).toContain('[COMMAND_LINE_INVALID]');
  });
});
