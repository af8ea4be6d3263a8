// What a followed repository can cost and reveal: a sync writes at most QUIRE_FOLLOW_MAX_BYTES (a
// file of zeros is small on the wire and large on disk; a large pack is stopped as it arrives),
// the content folder may not be a link out of the checkout, and credentials in an https URL are
// neither printed nor put on a command line another local user could read. Real bare
// repositories, a real smart-HTTP git server, the real CLI as a child process.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGitHttpServer } from '../helpers/git-http-server.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-follow-bounds-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An author's clone with one published article, pushed to a bare repository at `remote`. */
function authorWithRemote(remote: string): { p: TempProject; push: (message: string) => void } {
  const p = createTempProject({ git: true });
  cleanups.push(() => p.cleanup());
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  writeSite(p, 'site');
  p.write('site/articles/first.md', article({ title: 'First', status: 'published' }));
  p.commit('first', '2026-03-01T10:00:00Z');
  p.git('remote', 'add', 'origin', remote);
  p.git('push', '-q', 'origin', 'main');
  let day = 2;
  const push = (message: string) => {
    p.commit(message, `2026-03-${String(day++).padStart(2, '0')}T10:00:00Z`);
    p.git('push', '-q', 'origin', 'main');
  };
  return { p, push };
}

async function follow(url: string, p: TempProject, extra: Record<string, string> = {}) {
  const server = await startCli(
    ['start', '--follow', url, '--interval', '1'],
    { QUIRE_STATE_DIR: p.stateDir, QUIRE_DIST_DIR: p.distDir, PORT: '0', ...extra },
    /Following .*\n/,
  );
  cleanups.push(() => server.stop());
  const [, key, base] = server.output().match(/curl -H "Authorization: Bearer (\S+)" (\S+)\n/)!;
  const status = async (slug: string) =>
    (await fetch(`${base}/${slug}`, { headers: { authorization: `Bearer ${key}` } })).status;
  return { server, status };
}

const MiB = 1024 * 1024;

describe('a sync is bounded', () => {
  it('a commit whose files would be larger on disk than the bound is never checked out; the last good build stays', async () => {
    const remote = path.join(tempDir(), 'remote.git');
    const { p, push } = authorWithRemote(remote);
    const { server, status } = await follow(remote, p, { QUIRE_FOLLOW_MAX_BYTES: String(2 * MiB) });
    expect(await status('first')).toBe(200);

    // 8 MiB of zeros: a few KB over the wire, 8 MiB once checked out.
    fs.writeFileSync(path.join(p.root, 'zeros.bin'), Buffer.alloc(8 * MiB));
    p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
    push('zeros');
    await waitFor(() => /FOLLOW_SYNC_TOO_LARGE|not checked out/.test(server.output()), server.output);
    expect(server.output()).toMatch(
      /was not checked out: it holds files of more than 2097152 bytes in all \(QUIRE_FOLLOW_MAX_BYTES\); the largest seen is zeros\.bin \(8388608 bytes\)/,
    );
    expect(fs.existsSync(path.join(p.stateDir, 'follow', 'checkout', 'zeros.bin'))).toBe(false);
    expect(await status('first')).toBe(200);
    expect(await status('second')).toBe(404);

    // Taken out again: the next commit is checked out and served.
    fs.rmSync(path.join(p.root, 'zeros.bin'));
    push('no zeros');
    await waitFor(() => /Following: commit/.test(server.output().split('not checked out').at(-1)!), server.output);
    await waitFor(() => server.output().includes('Fetching works again.'), server.output);
    for (let i = 0; i < 100 && (await status('second')) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await status('second')).toBe(200);
  });

  it('a fetch that brings more than the bound is stopped as it arrives', async () => {
    const root = tempDir();
    const { p, push } = authorWithRemote(path.join(root, 'remote.git'));
    const git = await startGitHttpServer({ root, bytesPerSecond: 2 * MiB });
    cleanups.push(() => git.close());
    const { server, status } = await follow(`${git.url}/remote.git`, p, { QUIRE_FOLLOW_MAX_BYTES: String(MiB) });
    expect(await status('first')).toBe(200);

    // 6 MiB that do not compress, sent at 2 MiB/s: stopped after about half a second.
    fs.writeFileSync(path.join(p.root, 'noise.bin'), randomBytes(6 * MiB));
    push('noise');
    const started = Date.now();
    await waitFor(
      () => /the fetch was stopped: it had received more than 1048576 bytes/.test(server.output()),
      server.output,
    );
    expect(Date.now() - started).toBeLessThan(2_500); // not the 3 s the whole pack takes to arrive
    const packs = path.join(p.stateDir, 'follow', 'checkout', '.git', 'objects', 'pack');
    const kept = fs.readdirSync(packs).reduce((n, f) => n + fs.statSync(path.join(packs, f)).size, 0);
    expect(kept).toBeLessThan(MiB);
    expect(await status('first')).toBe(200);
  });
});

describe('the content folder of a followed repository', () => {
  it('committed as a link to a folder outside the checkout: refused with its place, the last good build stays', async () => {
    const remote = path.join(tempDir(), 'remote.git');
    const { p, push } = authorWithRemote(remote);
    const { server, status } = await follow(remote, p);
    expect(await status('first')).toBe(200);

    // Another tree with a site of the same name, elsewhere on the machine.
    const outside = tempDir();
    fs.mkdirSync(path.join(outside, 'site', 'articles'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'site', 'site.yaml'), 'name: site\nlang: en\nurl: https://site.example.com\n');
    fs.writeFileSync(
      path.join(outside, 'site', 'articles', 'secret.md'),
      article({ title: 'Secret', status: 'published' }),
    );
    fs.rmSync(p.contentDir, { recursive: true });
    fs.symlinkSync(outside, p.contentDir);
    push('content elsewhere');
    await waitFor(() => /CONTENT_ROOT_OUTSIDE/.test(server.output()), server.output);
    expect(server.output()).toMatch(/the content folder is a symbolic link/);
    await waitFor(() => /Nothing was published; the last good build stays up/.test(server.output()), server.output);
    expect(await status('secret')).toBe(404);
    expect(await status('first')).toBe(200);
  });
});

describe('credentials in a followed URL', () => {
  it('are given to git through its environment only: never printed, never on a command line', async () => {
    const root = tempDir();
    const { p, push } = authorWithRemote(path.join(root, 'remote.git'));
    const token = `tok${randomBytes(12).toString('hex')}`;
    const git = await startGitHttpServer({ root, credentials: { username: 'x-access-token', password: token } });
    cleanups.push(() => git.close());
    // While git waits for each answer, every command line on the machine is read.
    const seen: string[] = [];
    git.duringRequest = () => {
      for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
          const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          if (cmdline.includes(token)) seen.push(cmdline.replaceAll('\0', ' '));
        } catch {
          // gone meanwhile
        }
      }
    };
    const url = `${git.url.replace('http://', `http://x-access-token:${token}@`)}/remote.git`;
    const { server, status } = await follow(url, p);
    expect(await status('first')).toBe(200);
    // The credentials were asked for and given (git sends none before a 401).
    expect(git.authorizations.some((a) => a?.startsWith('Basic '))).toBe(true);

    p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
    push('second');
    for (let i = 0; i < 100 && (await status('second')) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await status('second')).toBe(200);

    expect(seen).toEqual([]);
    expect(server.output()).not.toContain(token);
    expect(server.output()).toContain(`Following http://***@127.0.0.1:`);
  });

  it("a wrong password: the fetch fails with git's words, and the password is not printed", async () => {
    const root = tempDir();
    const { p } = authorWithRemote(path.join(root, 'remote.git'));
    const git = await startGitHttpServer({ root, credentials: { username: 'editor', password: 'right-password' } });
    cleanups.push(() => git.close());
    const wrong = 'wrong-password-0123456789';
    const run = await runCli(
      ['start', '--follow', `${git.url.replace('http://', `http://editor:${wrong}@`)}/remote.git`],
      { QUIRE_STATE_DIR: p.stateDir, QUIRE_DIST_DIR: p.distDir, PORT: '0' },
    );
    const output = run.stdout + run.stderr;
    expect(run.code).toBe(1);
    expect(output).toMatch(/Fetch failed: .*(Authentication failed|401)/);
    expect(output).not.toContain(wrong);
    expect(output).toContain('http://***@127.0.0.1:');
  });
});
