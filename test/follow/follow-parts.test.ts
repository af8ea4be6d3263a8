// The follower's parts on their own: git refused the `ext::` transport and given a time-out,
// push-hook signatures, and the coalescing of bursts.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckout } from '../../src/follow/checkout.ts';
import { createCoalescingRunner } from '../../src/follow/coalescing-runner.ts';
import { createFollower } from '../../src/follow/follower.ts';
import { checkBranchName, checkRepositoryUrl, FollowSourceError } from '../../src/follow/follow-source.ts';
import { GitCommandError, runGit } from '../../src/git/git-runner.ts';
import { pushedRef, verifyPushHook } from '../../src/follow/hook-verification.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-follow-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('git as the follower runs it', () => {
  it('refuses the ext:: transport even when handed one directly and the git config allows it', async () => {
    const dir = tempDir();
    const marker = path.join(dir, 'ran');
    // As if the operator's git config said protocol.ext.allow=always (without the follower's
    // own setting, this fetch runs the command: checked by hand with plain git).
    Object.assign(process.env, {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'protocol.ext.allow',
      GIT_CONFIG_VALUE_0: 'always',
    });
    try {
      const checkout = createCheckout(
        path.join(dir, 'checkout'),
        { url: `ext::sh -c touch% ${marker}`, branch: 'main', credentials: null, local: false },
        { maxBytes: 2 ** 30 },
      );
      await expect(checkout.sync()).rejects.toThrow(GitCommandError);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      for (const name of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']) delete process.env[name];
    }
  });

  it('gives up on a remote that never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const dir = tempDir();
      await runGit({ kind: 'none', dir }, ['init', '-q']);
      const repository = { kind: 'repository' as const, gitDir: path.join(dir, '.git'), workTree: dir };
      await expect(
        runGit(repository, ['fetch', '-q', '--', `git://127.0.0.1:${port}/repo`, 'main'], { timeoutMs: 700 }),
      ).rejects.toThrow(/timed out/);
      expect(Date.now() - started).toBeLessThan(5_000);

      // A sync whose fetch timed out does not ask the remote for its branches too (another wait).
      const checkout = createCheckout(
        path.join(tempDir(), 'checkout'),
        { url: `git://127.0.0.1:${port}/repo`, branch: 'main', credentials: null, local: false },
        { maxBytes: 2 ** 30, timeoutMs: 700 },
      );
      const before = sockets.length;
      await expect(checkout.sync()).rejects.toThrow(/git fetch timed out/);
      await new Promise((r) => setTimeout(r, 200));
      expect(sockets.length - before).toBe(1);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});

describe('what --follow accepts', () => {
  it('takes URLs, scp-like addresses and paths; refuses options, remote helpers and odd branches', () => {
    expect(checkRepositoryUrl('https://github.com/o/r.git', '/srv')).toBe('https://github.com/o/r.git');
    expect(checkRepositoryUrl('git@github.com:o/r.git', '/srv')).toBe('git@github.com:o/r.git');
    expect(checkRepositoryUrl('repo.git', '/srv')).toBe(path.resolve('/srv', 'repo.git'));
    for (const bad of ['--upload-pack=x', '-u', 'ext::sh -c x', 'fd::3', 'javascript://x', 'a\nb', '']) {
      expect(() => checkRepositoryUrl(bad, '/srv'), bad).toThrow(FollowSourceError);
    }
    for (const ok of ['main', 'release/2026', 'v1.2_x']) expect(checkBranchName(ok)).toBe(ok);
    for (const bad of [
      '--upload-pack=touch x',
      '-x',
      'a..b',
      'a b',
      'a/',
      '.hidden',
      'x.lock',
      'a@{1}',
      'refs//x',
      '',
    ]) {
      expect(() => checkBranchName(bad), bad).toThrow(FollowSourceError);
    }
  });
});

describe('push-hook verification', () => {
  const secret = 'hook-secret-0123456789';
  const body = Buffer.from(JSON.stringify({ ref: 'refs/heads/main' }));
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  const sign = (key: string, bytes: Buffer) => `sha256=${createHmac('sha256', key).update(bytes).digest('hex')}`;

  it("accepts GitHub's signature of the raw body and GitLab's token, nothing else", () => {
    expect(verifyPushHook(headers({ 'x-hub-signature-256': sign(secret, body) }), body, secret)).toBe('github');
    expect(verifyPushHook(headers({ 'x-gitlab-token': secret }), body, secret)).toBe('gitlab');
    expect(
      verifyPushHook(
        headers({ 'x-hub-signature-256': sign(secret, Buffer.concat([body, Buffer.from(' ')])) }),
        body,
        secret,
      ),
    ).toBe(null);
    expect(
      verifyPushHook(headers({ 'x-hub-signature-256': sign('other-secret-0123456789', body) }), body, secret),
    ).toBe(null);
    expect(verifyPushHook(headers({ 'x-hub-signature-256': sign(secret, body).slice(0, -2) }), body, secret)).toBe(
      null,
    );
    // A GitHub header that fails is not rescued by a good GitLab token beside it.
    expect(
      verifyPushHook(headers({ 'x-hub-signature-256': 'sha256=00', 'x-gitlab-token': secret }), body, secret),
    ).toBe(null);
    expect(verifyPushHook(headers({ 'x-gitlab-token': secret.slice(1) }), body, secret)).toBe(null);
    expect(verifyPushHook(headers({}), body, secret)).toBe(null);
  });

  it('reads the pushed ref from a JSON payload, and nothing from other bodies', () => {
    expect(pushedRef(body)).toBe('refs/heads/main');
    expect(pushedRef(Buffer.from('payload=%7B%7D'))).toBe(null);
    expect(pushedRef(Buffer.from('{"zen":"ping"}'))).toBe(null);
  });
});

describe('the coalescing runner', () => {
  it('runs once more after a burst, never two at a time', async () => {
    let runs = 0;
    let concurrent = 0;
    let most = 0;
    let release = () => {};
    const runner = createCoalescingRunner(async () => {
      runs++;
      most = Math.max(most, ++concurrent);
      await new Promise<void>((r) => (release = r));
      concurrent--;
    });
    const first = runner.trigger();
    const burst = Array.from({ length: 10 }, () => runner.trigger());
    expect(runs).toBe(1);
    release();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    expect(runs).toBe(2);
    release();
    await Promise.all(burst);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    await runner.stop();
  });
});

describe('the follower', () => {
  it('publishes a new commit once, and tries again soon when the publish lock was held', async () => {
    let head = 'a'.repeat(40);
    const published: string[] = [];
    const outcomes: ('done' | 'retry')[] = ['retry', 'done', 'done'];
    const lines: string[] = [];
    const follower = createFollower({
      // Only the scheduling is under test here; the checkout's git work is tested through the CLI.
      checkout: {
        dir: '',
        head: async () => head,
        branch: () => 'main',
        sync: async () => ({ commit: head, previous: head }),
      },
      intervalSeconds: 0,
      publish: async (commit) => {
        published.push(commit);
        return outcomes.shift()!;
      },
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      retryDelayMs: 50,
    });
    follower.start();
    for (let i = 0; i < 50 && published.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(published).toEqual(['a'.repeat(40), 'a'.repeat(40)]);
    await follower.trigger(); // the same commit: nothing more to do
    expect(published.length).toBe(2);
    head = 'b'.repeat(40);
    await follower.trigger();
    expect(published).toEqual(['a'.repeat(40), 'a'.repeat(40), 'b'.repeat(40)]);
    await follower.stop();
  });
});
