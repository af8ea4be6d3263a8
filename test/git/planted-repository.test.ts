// A commit must not run code wherever Quire builds it. A content-only commit can add the files of
// a git directory under content/ (HEAD, objects/, refs/ and a config naming `core.fsmonitor`);
// when git is left to discover the repository from the content folder, it finds that one and
// runs the command. Every way Quire runs git is tried here with a planted command that would
// leave a marker file: `build`, `publish`, `dev` and `start --follow` (pushed after start, then
// fetched on a signed push notification). The marker must never appear, and the plant is a
// content problem with its place.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { article, createTempProject, projectFolders, writeSite, type TempProject } from '../helpers/temp-content.ts';

const HOOK_SECRET = 'git-hook-secret-for-tests-0123';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(): TempProject {
  const p = createTempProject({ git: true });
  cleanups.push(() => p.cleanup());
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  writeSite(p, 'site');
  p.write('site/articles/first.md', article({ title: 'First', status: 'published' }));
  p.commit('first', '2026-03-01T10:00:00Z');
  return p;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-plant-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The files of a bare git directory at `content/<at>`, whose config makes the content folder its
 * work tree and names a command for git to run on `status`. Each folder git needs holds a file,
 * so that the whole plant can be committed.
 */
function plantRepository(p: TempProject, at: string, marker: string): void {
  const prefix = at ? `${at}/` : '';
  p.write(`${prefix}HEAD`, 'ref: refs/heads/main\n');
  p.write(`${prefix}objects/info/site.yaml`, 'not: a site\n');
  p.write(`${prefix}refs/heads/site.yaml`, 'not: a site\n');
  p.write(
    `${prefix}config`,
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "echo ran >> '${marker}'; false"\n[core]\n\thooksPath = hooks\n`,
  );
}

const env = (p: TempProject, extra: Record<string, string> = {}) => ({ ...projectFolders(p), ...extra });

describe('a repository planted in the content tree', () => {
  it('quire build: the plant is a content problem, found before git runs, and its command never runs', async () => {
    const p = project();
    const marker = path.join(tempDir(), 'marker');
    plantRepository(p, '', marker);
    p.commit('plant', '2026-03-02T10:00:00Z');
    // As a reader of the pull request would have it: a fresh clone.
    const clone = path.join(tempDir(), 'clone');
    execFileSync('git', ['clone', '-q', p.root, clone]);
    expect(fs.existsSync(path.join(clone, 'content', 'HEAD'))).toBe(true);

    const run = await runCli(
      ['build'],
      {
        QUIRE_CONTENT_DIR: path.join(clone, 'content'),
        QUIRE_DIST_DIR: path.join(clone, 'dist'),
        QUIRE_STATE_DIR: path.join(clone, '.quire'),
      },
      clone,
    );
    expect(fs.existsSync(marker)).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /content\/HEAD:1:1 .*git would take this folder for a repository.*\[CONTENT_GIT_REPOSITORY\]/,
    );
    expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
  });

  it('quire publish and publish --dry-run: refused the same way, nothing runs', async () => {
    const p = project();
    const marker = path.join(tempDir(), 'marker');
    expect((await runCli(['build'], env(p))).code).toBe(0);
    const before = fs.readFileSync(path.join(p.distDir, 'manifest.json'));
    plantRepository(p, 'site/articles/notes', marker);
    p.commit('plant', '2026-03-02T10:00:00Z');
    for (const args of [['publish', '--dry-run'], ['publish']]) {
      const run = await runCli(args, env(p));
      expect(fs.existsSync(marker), args.join(' ')).toBe(false);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/content\/site\/articles\/notes\/HEAD:1:1 .*\[CONTENT_GIT_REPOSITORY\]/);
    }
    expect(fs.readFileSync(path.join(p.distDir, 'manifest.json'))).toEqual(before);
  });

  it('quire dev: a plant written while it watches is reported, and its command never runs', async () => {
    const p = project();
    const marker = path.join(tempDir(), 'marker');
    const dev = await startCli(['dev'], env(p, { PORT: '0' }), /Watching .* for changes/);
    try {
      plantRepository(p, '', marker);
      await waitFor(() => /CONTENT_GIT_REPOSITORY/.test(dev.output()), dev.output);
      // Another change makes another build (and, before the fix, another `git status`).
      p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
      await waitFor(() => (dev.output().match(/CONTENT_GIT_REPOSITORY/g) ?? []).length >= 2, dev.output);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      await dev.stop();
    }
  });

  it('start --follow: a plant pushed after start and fetched on a signed push keeps the last good build, and runs nothing', async () => {
    const p = project();
    const marker = path.join(tempDir(), 'marker');
    const remote = tempDir();
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    p.git('remote', 'add', 'origin', remote);
    p.git('push', '-q', 'origin', 'main');
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '0'],
      { QUIRE_STATE_DIR: p.stateDir, QUIRE_DIST_DIR: p.distDir, PORT: '0', QUIRE_GIT_HOOK_SECRET: HOOK_SECRET },
      /Following .*\n/,
    );
    try {
      const [, key, url] = server.output().match(/curl -H "Authorization: Bearer (\S+)" (\S+)\n/)!;
      const get = (slug: string) => fetch(`${url}/${slug}`, { headers: { authorization: `Bearer ${key}` } });
      expect((await get('first')).status).toBe(200);

      plantRepository(p, '', marker);
      p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
      p.commit('plant', '2026-03-02T10:00:00Z');
      p.git('push', '-q', 'origin', 'main');
      const hook = server.output().match(/push endpoint: (\S+)/)![1]!;
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', HOOK_SECRET).update(body).digest('hex')}`;
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body,
      });
      expect(res.status).toBe(202);
      await waitFor(() => /Nothing was published; the last good build stays up/.test(server.output()), server.output);
      expect(server.output()).toMatch(/content\/HEAD:1:1 .*\[CONTENT_GIT_REPOSITORY\]/);
      expect(fs.existsSync(marker)).toBe(false);
      expect((await get('first')).status).toBe(200);
      expect((await get('second')).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('a .git file pointing at a repository elsewhere, at the content root or deeper, is refused and never read', async () => {
    const elsewhere = tempDir();
    const marker = path.join(tempDir(), 'marker');
    execFileSync('git', ['init', '-q', elsewhere]);
    execFileSync('git', ['-C', elsewhere, 'config', 'core.fsmonitor', `echo ran >> '${marker}'; false`]);
    for (const at of ['', 'site/articles/deep']) {
      const p = project();
      p.write(`${at ? `${at}/` : ''}.git`, `gitdir: ${path.join(elsewhere, '.git')}\n`);
      const run = await runCli(['build'], env(p));
      expect(fs.existsSync(marker), at).toBe(false);
      expect(run.code, at).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`content/${at ? `${at}/` : ''}\\.git:1:1 .*a file named \\.git.*\\[CONTENT_GIT_REPOSITORY\\]`),
      );
    }
  });
});
