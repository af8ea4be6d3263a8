// `quire start --follow`: a real bare repository as the remote, the real CLI as a child process,
// a real HTTPS receiver. Pushes are served and published, a broken push keeps the last good
// build, a force-push withdraws what it removed, and push notifications must be signed.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followCheckoutDir } from '../../src/config/state-layout.ts';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { ADMIN_TOKEN, signIn } from '../helpers/admin-server.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const HOOK_SECRET = 'git-hook-secret-for-tests-0123';
const { receiver, project, env } = useReceiverProject();
const remotes: string[] = [];
afterEach(() => {
  for (const dir of remotes.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The author's clone (the temp project) and the bare repository it pushes to. */
function authorAndRemote(): {
  p: TempProject;
  remote: string;
  push: (message: string, date: string, ...flags: string[]) => string;
} {
  const p = createTempProject({ git: true });
  project.current = p;
  const remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
  remotes.push(remote);
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  writeSite(p, 'site');
  p.write('site/articles/first.md', article({ title: 'First', status: 'published' }));
  p.commit('first', '2026-03-01T10:00:00Z');
  p.git('remote', 'add', 'origin', remote);
  p.git('push', '-q', 'origin', 'main');
  const push = (message: string, date: string, ...flags: string[]) => {
    const commit = p.commit(message, date);
    p.git('push', '-q', ...flags, 'origin', 'main');
    return commit;
  };
  return { p, remote, push };
}

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...env(), PORT: '0', QUIRE_ADMIN_TOKEN: ADMIN_TOKEN, ...extra };
}

async function waitFor(
  check: () => boolean | Promise<boolean>,
  output: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out:\n${output()}`);
}

function api(output: string): (slug?: string) => Promise<Response> {
  const [, key, url] = output.match(/curl -H "Authorization: Bearer (\S+)" (\S+)\n/)!;
  return (slug) => fetch(slug ? `${url}/${slug}` : url!, { headers: { authorization: `Bearer ${key}` } });
}

const slugsServed = async (get: ReturnType<typeof api>) =>
  ((await (await get()).json()) as { articles: { slug: string }[] }).articles.map((a) => a.slug).sort();

/** Every event the receiver got, after checking each one's signature. */
function eventsReceived(): { event: string; slug: string }[] {
  return receiver().requests.map((r) => {
    const verified = verifyWebhook(r.rawBody, r.headers as Record<string, string>, RECEIVER_SECRET);
    if (!verified.ok) throw new Error(`a badly signed delivery: ${verified.reason}`);
    return { event: verified.payload.event, slug: verified.payload.article.slug };
  });
}

async function registerWebhook(): Promise<void> {
  const set = await runCli(
    ['webhook', 'set', 'site', '--url', `${receiver().url}/hook`, '--secret', RECEIVER_SECRET],
    env(),
  );
  expect(set.code, set.stderr).toBe(0);
}

describe('start --follow', () => {
  it('serves and publishes pushes, keeps the last good build on a broken one, and withdraws what a force-push removed', async () => {
    const { p, remote, push } = authorAndRemote();
    await registerWebhook();
    const server = await startCli(['start', '--follow', remote, '--interval', '1'], serverEnv(), /Following .*\n/);
    try {
      const get = api(server.output());
      await waitFor(() => eventsReceived().some((e) => e.slug === 'first' && e.event === 'published'), server.output);

      // A new article: served, and its receiver gets a signed `published`.
      p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
      const second = push('second', '2026-03-02T10:00:00Z');
      await waitFor(async () => (await get('second')).status === 200, server.output);
      await waitFor(() => eventsReceived().some((e) => e.slug === 'second' && e.event === 'published'), server.output);
      const served = (await (await get('second')).json()) as { publishedAt: string };
      expect(served.publishedAt).toBe('2026-03-02T10:00:00Z'); // dated from the checkout's history

      // A broken article: the build fails, the last good build stays served, the admin shows why.
      p.write('site/articles/broken.md', article({ title: 'Broken', status: 'maybe' }));
      push('broken', '2026-03-03T10:00:00Z');
      await waitFor(
        () => /broken\.md.*\n[\s\S]*Nothing was published; the last good build stays up/.test(server.output()),
        server.output,
      );
      // Named as it is in the repository, not as the state dir holds it.
      expect(server.output()).toMatch(/^content\/site\/articles\/broken\.md:\d+:\d+ {2}unknown status/m);
      expect(await slugsServed(get)).toEqual(['first', 'second']);
      const admin = await signIn(server.output().match(/Publishing app: (\S+)\/admin/)![1]!);
      const tab = await (await admin.get('/admin/sites/site/articles')).text();
      expect(tab).toContain('broken.md');
      expect(tab).toContain('unknown status');

      // A force-push back to before `second`: the checkout follows it; `second` is withdrawn and,
      // as the spec's receivers know only published/updated, recorded as deleted without an event.
      const before = eventsReceived().length;
      p.git('reset', '-q', '--hard', `${second}~1`);
      p.git('push', '-q', '--force', 'origin', 'main');
      await waitFor(async () => (await get('second')).status === 404, server.output);
      expect(await slugsServed(get)).toEqual(['first']);
      await waitFor(() => /1 deleted article not sent/.test(server.output()), server.output);
      expect(eventsReceived().length).toBe(before);
      expect(git(followCheckoutDir(p.stateDir), 'rev-parse', 'HEAD')).toBe(git(p.root, 'rev-parse', 'HEAD'));

      // The remote out of reach: logged, the build stays served, and the next tick tries again.
      fs.renameSync(remote, `${remote}.away`);
      await waitFor(
        () => /Fetch failed \(serving what was last built; trying again in 1 s\)/.test(server.output()),
        server.output,
      );
      expect(await slugsServed(get)).toEqual(['first']);
      fs.renameSync(`${remote}.away`, remote);
      await waitFor(() => server.output().includes('Fetching works again.'), server.output);
      expect(server.child.exitCode).toBe(null);
    } finally {
      await server.stop();
    }
  });

  it('fetches on signed GitHub and GitLab push notifications only', async () => {
    const { p, remote, push } = authorAndRemote();
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '0'],
      serverEnv({ QUIRE_GIT_HOOK_SECRET: HOOK_SECRET }),
      /Following .*\n/,
    );
    try {
      const get = api(server.output());
      const hook = `${server.output().match(/push endpoint: (\S+)/)![1]}`;
      const checkout = followCheckoutDir(p.stateDir);
      const first = git(checkout, 'rev-parse', 'HEAD');

      p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
      push('second', '2026-03-02T10:00:00Z');
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const bad = [
        {
          'x-hub-signature-256': `sha256=${createHmac('sha256', 'another-secret-0123456789').update(body).digest('hex')}`,
        },
        { 'x-hub-signature-256': 'sha256=zz' },
        { 'x-gitlab-token': `${HOOK_SECRET}x` },
        {},
      ];
      for (const headers of bad) {
        const res = await fetch(hook, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        expect(res.status).toBe(401);
      }
      await new Promise((r) => setTimeout(r, 1500));
      expect(git(checkout, 'rev-parse', 'HEAD')).toBe(first);
      expect((await get('second')).status).toBe(404);
      expect(server.output()).not.toContain('Push notification');

      // A push to another branch is acknowledged and ignored.
      const other = JSON.stringify({ ref: 'refs/heads/feature' });
      const ignored = await fetch(hook, {
        method: 'POST',
        headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(other).digest('hex')}` },
        body: other,
      });
      expect(ignored.status).toBe(202);
      expect(await ignored.json()).toMatchObject({ status: 'ignored' });

      const github = await fetch(hook, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      expect(github.status).toBe(202);
      await waitFor(async () => (await get('second')).status === 200, server.output);

      p.write('site/articles/third.md', article({ title: 'Third', status: 'published' }));
      push('third', '2026-03-03T10:00:00Z');
      const gitlabBody = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main' });
      const gitlab = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': HOOK_SECRET },
        body: gitlabBody,
      });
      expect(gitlab.status).toBe(202);
      await waitFor(async () => (await get('third')).status === 200, server.output);
    } finally {
      await server.stop();
    }
  });

  it('has no push endpoint when not following', async () => {
    const { p } = authorAndRemote();
    expect(fs.existsSync(p.contentDir)).toBe(true);
    const server = await startCli(['start'], serverEnv({ QUIRE_GIT_HOOK_SECRET: HOOK_SECRET }), /Publishing app: .*\n/);
    try {
      const base = server.output().match(/Quire Content API on (\S+)\/v1/)![1]!;
      const body = '{}';
      const res = await fetch(`${base}/hooks/git`, {
        method: 'POST',
        headers: { 'x-gitlab-token': HOOK_SECRET },
        body,
      });
      expect(res.status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('without --branch, follows the branch the remote names as its default, and ignores pushes to others', async () => {
    const { p, remote } = authorAndRemote();
    // The remote's default is `live` (its HEAD); its `main` holds an article `live` does not.
    execFileSync('git', ['--git-dir', remote, 'symbolic-ref', 'HEAD', 'refs/heads/live']);
    p.git('push', '-q', 'origin', 'main:live');
    p.write('site/articles/only-on-main.md', article({ title: 'Only on main', status: 'published' }));
    p.commit('main only', '2026-03-02T10:00:00Z');
    p.git('push', '-q', 'origin', 'main');
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '0'],
      serverEnv({ QUIRE_GIT_HOOK_SECRET: HOOK_SECRET }),
      /Following .*\n/,
    );
    try {
      expect(server.output()).toContain(`Fetching ${remote} (its default branch) …`);
      expect(server.output()).toMatch(/Checked out [0-9a-f]{12} \(live\)\./);
      expect(server.output()).toContain(`Following ${remote} (live): fetching on push notifications only`);
      const get = api(server.output());
      expect(await slugsServed(get)).toEqual(['first']);
      const hook = server.output().match(/push endpoint: (\S+)/)![1]!;
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(body).digest('hex')}` },
        body,
      });
      expect(await res.json()).toEqual({ status: 'ignored', reason: 'this server follows refs/heads/live' });
    } finally {
      await server.stop();
    }
  });

  it('a branch the repository does not have: says so, lists the branches it has (20 at most), builds nothing, and has nothing to serve', async () => {
    const { p, remote } = authorAndRemote();
    p.git(
      'push',
      '-q',
      'origin',
      ...Array.from({ length: 25 }, (_, i) => `main:refs/heads/b${String(i).padStart(2, '0')}`),
    );
    const run = await runCli(['start', '--follow', remote, '--branch', 'live'], serverEnv());
    expect(run.code, run.stderr).toBe(1);
    const shown = Array.from({ length: 20 }, (_, i) => `b${String(i).padStart(2, '0')}`).join(', ');
    expect(run.stderr).toContain(
      `Fetch failed: ${remote} has no branch "live"; its branches: ${shown} (and 6 more)  [FOLLOW_BRANCH_MISSING]`,
    );
    expect(run.stderr).toContain(
      `Nothing has been checked out from ${remote} yet: check the URL, and the branch (--branch <b>; this is "live").`,
    );
    // Not a build of an empty checkout: no content problem about a folder the user never made.
    expect(run.stderr).not.toMatch(/CONTENT_NO_SITES|Build failed/);
    expect(run.stderr).toMatch(/No build to serve/);
  });

  it('without --branch, a repository with no branches yet: says so, and has nothing to serve', async () => {
    const { p } = authorAndRemote();
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
    remotes.push(empty);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', empty]);
    const run = await runCli(['start', '--follow', empty], serverEnv());
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `Fetch failed: ${empty} has no branches yet: push one (or check the URL)  [FOLLOW_BRANCH_MISSING]`,
    );
    expect(run.stderr).toContain(
      `Nothing has been checked out from ${empty} yet: check the URL, and the branch (its default branch; --branch <b> names another).`,
    );
    expect(fs.existsSync(path.join(followCheckoutDir(p.stateDir), 'content'))).toBe(false);
  });

  it('refuses a branch or URL git would read as an option or a command, before running git', async () => {
    const { remote } = authorAndRemote();
    const marker = path.join(project.current!.root, 'ran');
    const attempts = [
      ['--follow', remote, `--branch=--upload-pack=touch ${marker}`],
      [`--follow=--upload-pack=touch ${marker}`],
      ['--follow', `ext::sh -c touch% ${marker}`],
      ['--follow', remote, '--branch', 'main..other'],
      ['--interval', '5'],
      ['--previews', '*'],
      ['--follow', remote, `--previews=--upload-pack=touch ${marker}`],
      ['--follow', remote, '--previews', 'a..*'],
    ];
    for (const args of attempts) {
      const run = await runCli(['start', ...args], serverEnv());
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(
        /^quire start: (--branch|--previews|the repository URL|remote helpers|--branch, --interval and --previews go with --follow)/,
      );
    }
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(followCheckoutDir(project.current!.stateDir))).toBe(false);
  });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();
}
