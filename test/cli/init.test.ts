// `quire init`: a new content repository that builds without problems, keeps state and build
// output out of git, and is never written over.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
const freshRepo = () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-init-'));
  git(dir, 'init', '-q');
  return dir;
};
const env = (root: string) => ({ QUIRE_STATE_DIR: '', QUIRE_CONTENT_DIR: '', QUIRE_DIST_DIR: '', HOME: root });
const TEMPLATE = [
  '.github/workflows/quire.yml',
  '.gitignore',
  'content/my-site/articles/hello-world.md',
  'content/my-site/authors/editor.yaml',
  'content/my-site/site.yaml',
];

describe('quire init', () => {
  it('makes a repository whose first article builds without problems; git add -A after a build stages no state and no output', async () => {
    const root = freshRepo();
    const init = await runCli(['init'], env(root), root);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    // The next steps as README has them: `--no`, so npx never runs the registry's unrelated `quire`.
    expect(init.stdout).toContain('npx --no quire build');
    expect(init.stdout).not.toMatch(/npx quire/);
    const build = await runCli(['build'], env(root), root);
    expect(build.stderr).toBe(''); // no problem, not even a warning
    expect(build.code).toBe(0);
    expect(build.stdout).toMatch(/^Built 1 article \(1 live, 0 drafts\) in 1 site/);
    const article = JSON.parse(
      fs.readFileSync(path.join(root, 'dist', 'my-site', 'articles', 'hello-world.json'), 'utf8'),
    );
    expect(article).toMatchObject({ title: 'Hello, world', author: { name: 'The Editor' } });
    // The state dir holds the server secret once keys are printed.
    expect((await runCli(['keys'], env(root), root)).code).toBe(0);
    expect(fs.existsSync(path.join(root, '.quire'))).toBe(true);
    expect(fs.existsSync(path.join(root, '.dist.work'))).toBe(true);
    git(root, 'add', '-A');
    expect(git(root, 'diff', '--cached', '--name-only').trim().split('\n').sort()).toEqual(TEMPLATE);

    // The workflow is valid YAML whose job installs from the lock file and checks with the installed
    // Quire, on pull requests and on main, the one branch its (commented) publish job runs for.
    const workflowText = fs.readFileSync(path.join(root, '.github', 'workflows', 'quire.yml'), 'utf8');
    const workflow = parse(workflowText) as {
      on: { pull_request: null; push: { branches: string[] } };
      jobs: Record<string, { steps: { run?: string }[] }>;
    };
    expect(workflow.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
    expect(Object.keys(workflow.jobs)).toEqual(['check']);
    expect(workflow.jobs.check!.steps.flatMap((s) => (s.run ? [s.run] : []))).toEqual([
      'npm ci',
      'npx --no quire check --format github',
    ]);
    // The commented publish job, uncommented: from its first line to the end.
    const commented = workflowText.slice(workflowText.indexOf('  #   publish:')).trimEnd().split('\n');
    const publishJob = parse(commented.map((line) => line.slice(4)).join('\n')) as {
      publish: { needs: string; if: string };
    };
    expect(publishJob.publish).toMatchObject({
      needs: 'check',
      if: "github.event_name == 'push' && github.ref == 'refs/heads/main'",
    });
    // And the check it runs passes on what init wrote.
    const check = await runCli(['check', '--format', 'github'], env(root), root);
    expect([check.code, check.stdout]).toEqual([0, '']);
  });

  it('writes into the directory named, made if missing, with the site id given', async () => {
    const root = freshRepo();
    const r = await runCli(['init', 'blog', '--site', 'field-notes'], env(root), root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cd blog');
    expect(fs.existsSync(path.join(root, 'blog', 'content', 'field-notes', 'site.yaml'))).toBe(true);
    expect((await runCli(['build'], env(root), path.join(root, 'blog'))).code).toBe(0);
  });

  it('refuses to write over anything: with content/ or the workflow there, nothing is written', async () => {
    const root = freshRepo();
    expect((await runCli(['init'], env(root), root)).code).toBe(0);
    const article = path.join(root, 'content', 'my-site', 'articles', 'hello-world.md');
    fs.writeFileSync(article, '---\ntitle: Mine\n---\n');
    const again = await runCli(['init'], env(root), root);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already has content/, .github/workflows/quire.yml; nothing was written');
    expect(fs.readFileSync(article, 'utf8')).toBe('---\ntitle: Mine\n---\n');

    // Only the workflow there: still nothing written, not even content/.
    const other = path.join(root, 'other');
    fs.mkdirSync(path.join(other, '.github', 'workflows'), { recursive: true });
    fs.writeFileSync(path.join(other, '.github', 'workflows', 'quire.yml'), 'mine\n');
    const r = await runCli(['init', 'other'], env(root), root);
    expect(r.code).toBe(1);
    expect(fs.readdirSync(other)).toEqual(['.github']);
    expect(fs.readFileSync(path.join(other, '.github', 'workflows', 'quire.yml'), 'utf8')).toBe('mine\n');
  });

  it('keeps an existing .gitignore and adds only the lines it lacks', async () => {
    const root = freshRepo();
    fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n/dist/');
    expect((await runCli(['init'], env(root), root)).code).toBe(0);
    const lines = fs.readFileSync(path.join(root, '.gitignore'), 'utf8').split('\n');
    expect(lines.slice(0, 2)).toEqual(['*.log', '/dist/']);
    expect(lines.filter((l) => l === '/dist/')).toHaveLength(1);
    for (const line of ['/.quire/', '/.dist.*', 'node_modules/', '.env']) expect(lines).toContain(line);
  });

  it('adds a site to a repository that has content/ already, and changes nothing else', async () => {
    const root = freshRepo();
    expect((await runCli(['init'], env(root), root)).code).toBe(0);
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'first site');

    const r = await runCli(['init', '--site', 'second-site'], env(root), root);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Added the site "second-site"');
    expect(r.stdout).toContain('npx --no quire keys --site second-site');
    // Only new files, all in the new site's folder: nothing tracked was changed.
    expect(git(root, 'status', '--porcelain', '--untracked-files=all').trim().split('\n').sort()).toEqual([
      '?? content/second-site/articles/hello-world.md',
      '?? content/second-site/authors/editor.yaml',
      '?? content/second-site/site.yaml',
    ]);
    const build = await runCli(['build'], env(root), root);
    expect(build.stderr).toBe('');
    expect(build.stdout).toMatch(/^Built 2 articles \(2 live, 0 drafts\) in 2 sites/);
    expect(fs.existsSync(path.join(root, 'dist', 'second-site', 'articles', 'hello-world.json'))).toBe(true);
  });

  it('refuses to add a site that is there already, or without --site says how to add one', async () => {
    const root = freshRepo();
    expect((await runCli(['init'], env(root), root)).code).toBe(0);
    const siteYaml = path.join(root, 'content', 'my-site', 'site.yaml');
    fs.writeFileSync(siteYaml, 'name: Mine\nlang: en\nurl: https://mine.example\n');
    const again = await runCli(['init', '--site', 'my-site'], env(root), root);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the site "my-site" exists; nothing was written\.\s+\[SITE_EXISTS\]/);
    expect(fs.readFileSync(siteYaml, 'utf8')).toBe('name: Mine\nlang: en\nurl: https://mine.example\n');

    const bare = await runCli(['init'], env(root), root);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('To add a site to it: quire init --site <id>');

    const bad = await runCli(['init', '--site', 'Second Site'], env(root), root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"Second Site" is not a site id');
    expect(fs.readdirSync(path.join(root, 'content'))).toEqual(['my-site']);
  });

  it('refuses a site id that is not one, before writing anything', async () => {
    const root = freshRepo();
    const r = await runCli(['init', '--site', 'My Site'], env(root), root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"My Site" is not a site id');
    expect(fs.readdirSync(root)).toEqual(['.git']);
  });
});
