// The one way Quire runs git: nothing a repository's config names is run (even in the repository
// Quire chose), nothing in the caller's environment points git elsewhere, and the repository is
// the one Quire located: never one git would discover from the content folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/git-runner.ts';
import { locateContentRepository } from '../../src/git/repository.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-git-')));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

/** A repository with one commit, whose own config and hooks would leave `marker` if anything ran them. */
function booby(marker: string): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  fs.mkdirSync(path.join(dir, 'content'));
  fs.writeFileSync(path.join(dir, 'content', 'a.md'), 'a\n');
  fs.writeFileSync(path.join(dir, '.gitattributes'), '*.md diff=run\n');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'one');
  const run = `echo ran >> '${marker}'; false`;
  git(dir, 'config', 'core.fsmonitor', run);
  git(dir, 'config', 'diff.external', run);
  git(dir, 'config', 'diff.run.textconv', run);
  git(dir, 'config', 'log.showSignature', 'true');
  git(dir, 'config', 'gpg.program', run);
  for (const hook of ['post-checkout', 'pre-auto-gc', 'reference-transaction']) {
    fs.writeFileSync(path.join(dir, '.git', 'hooks', hook), `#!/bin/sh\n${run}\n`, { mode: 0o755 });
  }
  fs.writeFileSync(path.join(dir, 'content', 'a.md'), 'changed\n'); // something for status and diff to look at
  return dir;
}

describe('runGit', () => {
  it('runs nothing a repository config or hook names, in the very repository Quire chose', async () => {
    const marker = path.join(tempDir(), 'marker');
    const dir = booby(marker);
    // Plain git would: the check that the booby trap is armed.
    git(dir, 'status', '--porcelain');
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    const repository = { kind: 'repository' as const, gitDir: path.join(dir, '.git'), workTree: dir };
    expect(await runGit(repository, ['status', '--porcelain', '--', 'content'])).toContain('content/a.md');
    await runGit(repository, ['log', '-p', '--', 'content']);
    await runGit(repository, ['diff', '--', 'content']);
    await runGit(repository, ['checkout', '-q', '--detach', 'HEAD']);
    await runGit(repository, ['update-ref', 'refs/quire/x', 'HEAD']);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('ignores GIT_DIR, GIT_WORK_TREE and git config in the caller environment', async () => {
    const marker = path.join(tempDir(), 'marker');
    const other = booby(marker);
    const mine = tempDir();
    git(mine, 'init', '-q', '-b', 'main');
    git(mine, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'mine');
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: path.join(other, '.git'),
      GIT_WORK_TREE: other,
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='echo ran >> ${marker}'`,
      GIT_EXTERNAL_DIFF: `sh -c 'echo ran >> ${marker}'`,
    });
    try {
      const repository = { kind: 'repository' as const, gitDir: path.join(mine, '.git'), workTree: mine };
      expect((await runGit(repository, ['log', '--format=%s'])).trim()).toBe('mine');
      await runGit(repository, ['status', '--porcelain']);
    } finally {
      for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CONFIG_PARAMETERS', 'GIT_EXTERNAL_DIFF']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('locateContentRepository', () => {
  it('is the nearest repository above the content folder, never one inside it', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    fs.mkdirSync(path.join(dir, 'sites', 'content', 'site'), { recursive: true });
    const found = await locateContentRepository(path.join(dir, 'sites', 'content'));
    expect(found).toEqual({
      repository: { kind: 'repository', gitDir: path.join(dir, '.git'), workTree: dir },
      issues: [],
    });
    // A bare-looking repository between them is not a repository Quire would use.
    fs.writeFileSync(path.join(dir, 'sites', 'HEAD'), 'ref: refs/heads/main\n');
    fs.mkdirSync(path.join(dir, 'sites', 'objects'));
    fs.mkdirSync(path.join(dir, 'sites', 'refs'));
    expect((await locateContentRepository(path.join(dir, 'sites', 'content'))).repository?.workTree).toBe(dir);
  });

  it('outside any repository: none, and no problem (dates come from the files)', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'content'));
    // A temp dir may itself sit inside a repository on some machines: the answer is then that one, never the content folder.
    const found = await locateContentRepository(path.join(dir, 'content'));
    expect(found.issues).toEqual([]);
    expect(found.repository?.workTree ?? null).not.toBe(path.join(dir, 'content'));
  });

  it('refuses a content folder that is a link, or whose real path leaves the repository', async () => {
    const repo = tempDir();
    git(repo, 'init', '-q');
    const outside = tempDir();
    fs.mkdirSync(path.join(outside, 'content'));
    fs.symlinkSync(path.join(outside, 'content'), path.join(repo, 'content'));
    const linked = await locateContentRepository(path.join(repo, 'content'));
    expect(linked.repository).toBe(null);
    expect(linked.issues.map((i) => i.code)).toEqual(['CONTENT_ROOT_OUTSIDE']);

    fs.symlinkSync(outside, path.join(repo, 'sites'));
    const through = await locateContentRepository(path.join(repo, 'sites', 'content'));
    expect(through.repository).toBe(null);
    expect(through.issues[0]).toMatchObject({
      code: 'CONTENT_ROOT_OUTSIDE',
      message: expect.stringContaining('outside the repository'),
    });
  });
});
