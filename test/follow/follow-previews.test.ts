// Branch previews (`quire start --follow <url> --previews <pattern>`): a real bare repository with
// branches, the real CLI as a child process, a real HTTPS receiver. A pushed branch is built apart
// and read only with the preview key and its ref; the followed branch, the public key, webhooks
// and the change feed do not see it; a push rebuilds it, a broken commit keeps its last good
// preview, a deleted branch is gone; past QUIRE_PREVIEW_BRANCHES_MAX the least recently pushed goes.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branchPreviewsDir } from '../../src/config/state-layout.ts';
import { branchPaths } from '../../src/follow/branch-store.ts';
import { verifyPreviewToken, verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { ADMIN_TOKEN, signIn } from '../helpers/admin-server.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOOK_SECRET = 'git-hook-secret-for-tests-0123';
const SITE_YAML =
  'name: site\nlang: en\nurl: https://site.example.com\npreviewUrl: https://site.example.com/api/preview?slug={slug}&token={token}\n';
const { receiver, project, env } = useReceiverProject();
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The author's clone (on main) and the bare repository it pushes to. */
function authorAndRemote(): {
  p: TempProject;
  remote: string;
  onBranch: (branch: string, change: () => void, date: string) => string;
} {
  const p = createTempProject({ git: true });
  project.current = p;
  const remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
  cleanups.push(() => fs.rmSync(remote, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  writeSite(p, 'site', SITE_YAML);
  p.write('site/articles/first.md', article({ title: 'First', status: 'published' }, 'First as published.\n'));
  p.write('site/articles/other.md', article({ title: 'Other', status: 'published' }, 'Other as published.\n'));
  p.commit('first', '2026-03-01T10:00:00Z');
  p.git('remote', 'add', 'origin', remote);
  p.git('push', '-q', 'origin', 'main');
  /** Commits `change` on `branch` (made from main when new), pushes it, and goes back to main. */
  const onBranch = (branch: string, change: () => void, date: string) => {
    const exists = p.git('branch', '--list', branch).trim() !== '';
    p.git('checkout', '-q', ...(exists ? [branch] : ['-b', branch, 'main']));
    change();
    const commit = p.commit(`on ${branch}`, date);
    p.git('push', '-q', 'origin', branch);
    p.git('checkout', '-q', 'main');
    return commit;
  };
  return { p, remote, onBranch };
}

/** Signed as GitHub signs a push event. */
function pushHook(hook: string, body: Record<string, unknown>): Promise<Response> {
  const text = JSON.stringify(body);
  return fetch(hook, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-hub-signature-256': `sha256=${createHmac('sha256', HOOK_SECRET).update(text).digest('hex')}`,
    },
    body: text,
  });
}

interface Keys {
  base: string;
  key: string;
  previewKey: string;
}

async function keysOf(output: string, stateDir?: string): Promise<Keys> {
  const [, key, url] = output.match(/curl -H "Authorization: Bearer (\S+)" (\S+)\/articles\n/)!;
  const listed = await runCli(['keys', '--json'], env(stateDir));
  expect(listed.code, listed.stderr).toBe(0);
  const previewKey = (JSON.parse(listed.stdout) as { previewKey: string }[])[0]!.previewKey;
  return { base: url!, key: key!, previewKey };
}

function get(k: Keys, route: string, opts: { key?: string; ref?: string; header?: boolean } = {}): Promise<Response> {
  const url = new URL(`${k.base}${route}`);
  if (opts.ref !== undefined && !opts.header) url.searchParams.set('ref', opts.ref);
  return fetch(url, {
    headers: {
      authorization: `Bearer ${opts.key ?? k.key}`,
      ...(opts.ref !== undefined && opts.header ? { 'quire-ref': opts.ref } : {}),
    },
  });
}

const slugsOf = async (res: Response) =>
  ((await res.json()) as { articles: { slug: string }[] }).articles.map((a) => a.slug).sort();
const htmlOf = async (res: Response) => ((await res.json()) as { html: string }).html;

function eventsReceived(): { event: string; slug: string }[] {
  return receiver().requests.map((r) => {
    const verified = verifyWebhook(r.rawBody, r.headers as Record<string, string>, RECEIVER_SECRET);
    if (!verified.ok) throw new Error(`a badly signed delivery: ${verified.reason}`);
    return { event: verified.payload.event, slug: verified.payload.article.slug };
  });
}

describe('start --follow --previews', { timeout: 120_000 }, () => {
  it('previews a pushed branch for preview keys only, rebuilds it on push, keeps its last good build, and drops it when deleted', async () => {
    const { p, remote, onBranch } = authorAndRemote();
    const set = await runCli(
      ['webhook', 'set', 'site', '--url', `${receiver().url}/hook`, '--secret', RECEIVER_SECRET],
      env(),
    );
    expect(set.code, set.stderr).toBe(0);
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '0', '--previews', 'content/*'],
      { ...env(), PORT: '0', QUIRE_ADMIN_TOKEN: ADMIN_TOKEN, QUIRE_GIT_HOOK_SECRET: HOOK_SECRET },
      /Branch previews: .*\n/,
    );
    cleanups.push(() => server.stop());
    expect(server.output()).toContain('Branch previews: content/* (at most 10)');
    const hook = server.output().match(/push endpoint: (\S+)/)![1]!;
    const k = await keysOf(server.output());
    await waitFor(() => eventsReceived().some((e) => e.slug === 'first'), server.output);
    const events = eventsReceived().length;
    const feed = (await (await get(k, '/changes')).json()) as { cursor: string };

    // A branch that edits `first`, adds `second` and a draft; main edits `other` after it branched.
    const spring = onBranch(
      'content/spring',
      () => {
        p.write('site/articles/first.md', article({ title: 'First', status: 'published' }, 'Edited on the branch.\n'));
        p.write('site/articles/second.md', article({ title: 'Second [x](https://evil.example)', status: 'published' }));
        p.write('site/articles/idea.md', article({ title: 'An idea', status: 'draft' }, 'Not yet.\n'));
      },
      '2026-03-02T10:00:00Z',
    );
    p.write('site/articles/other.md', article({ title: 'Other', status: 'published' }, 'Other, edited on main.\n'));
    p.commit('other on main', '2026-03-02T11:00:00Z');
    p.git('push', '-q', 'origin', 'main');
    const queued = await pushHook(hook, { ref: 'refs/heads/content/spring' });
    expect(queued.status).toBe(202);
    expect(await queued.json()).toEqual({ status: 'queued', preview: 'content/spring' });
    await waitFor(
      () => server.output().includes(`Branch preview content/spring: serving commit ${spring.slice(0, 12)}.`),
      server.output,
    );

    // With the preview key and the ref: the branch, drafts included, as the branch has them; never cached.
    const ref = 'content/spring';
    const list = await get(k, '/articles', { key: k.previewKey, ref });
    expect(list.headers.get('cache-control')).toBe('private, no-store');
    expect(await slugsOf(list)).toEqual(['first', 'idea', 'other', 'second']);
    expect(await htmlOf(await get(k, '/articles/first', { key: k.previewKey, ref }))).toContain(
      'Edited on the branch.',
    );
    const viaHeader = await get(k, '/articles/idea', { key: k.previewKey, ref, header: true });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers.get('cache-control')).toBe('private, no-store');
    expect(((await viaHeader.json()) as { status: string }).status).toBe('draft');

    // The followed branch, the public key, webhooks and the change feed are as they were.
    expect(await slugsOf(await get(k, '/articles', { key: k.previewKey }))).toEqual(['first', 'other']);
    expect(await htmlOf(await get(k, '/articles/first'))).toContain('First as published.');
    const refused = await get(k, '/articles', { ref });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('REF_PREVIEW_KEY_ONLY');
    const unknown = await get(k, '/articles/first', { key: k.previewKey, ref: 'content/autumn' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('REF_NOT_FOUND');
    // (main's own push was not announced to this server, which fetches on push notifications only)
    expect(eventsReceived()).toHaveLength(events);
    const since = (await (await get(k, `/changes?since=${feed.cursor}`)).json()) as { changes: { slug: string }[] };
    expect(since.changes.map((c) => c.slug)).not.toContain('second');
    expect(since.changes.map((c) => c.slug)).not.toContain('idea');
    expect(fs.existsSync(path.join(p.distDir, 'site', 'articles', 'second.json'))).toBe(false);

    // What the branch adds or changes, with links that name it: not `other`, which main changed.
    const changed = await runCli(['preview', '--changed', '--ref', ref, '--format', 'json'], env());
    expect(changed.code, changed.stderr).toBe(0);
    const listed = JSON.parse(changed.stdout) as {
      ref: string;
      base: string;
      articles: { slug: string; change: string; state: string; token: string; url: string }[];
    };
    expect(listed).toMatchObject({ ref, base: 'main', commit: spring });
    expect(listed.articles.map((a) => [a.slug, a.change, a.state]).sort()).toEqual([
      ['first', 'changed', 'published'],
      ['idea', 'added', 'draft'],
      ['second', 'added', 'published'],
    ]);
    const idea = listed.articles.find((a) => a.slug === 'idea')!;
    expect(verifyPreviewToken(idea.token, k.previewKey, { slug: 'idea', site: 'site' })).toMatchObject({
      ok: true,
      ref,
    });
    expect(idea.url).toMatch(/^https:\/\/site\.example\.com\/api\/preview\?slug=idea&token=/);
    const comment = await runCli(['preview', '--changed', '--ref', ref], env());
    expect(comment.code, comment.stderr).toBe(0);
    expect(comment.stdout).toContain(
      `**Previews of \`content/spring\`** at \`${spring.slice(0, 12)}\` (against \`main\`):`,
    );
    expect(comment.stdout).toMatch(
      /^- \[An idea\]\(<https:\/\/site\.example\.com\/api\/preview\?slug=idea&token=\S+>\): new, draft · `site\/idea`$/m,
    );
    // A title from content cannot make a link of its own.
    expect(comment.stdout).toContain('[Second \\[x\\]\\(https://evil.example\\)](<');
    const one = await runCli(['preview', 'site', 'second', '--ref', ref, '--json'], env());
    expect(one.code, one.stderr).toBe(0);
    const link = JSON.parse(one.stdout) as { url: string; token: string; expiresAt: string; ref: string };
    expect(link.ref).toBe(ref);
    expect(verifyPreviewToken(link.token, k.previewKey, { slug: 'second', site: 'site' })).toMatchObject({
      ok: true,
      ref,
    });
    const notPreviewed = await runCli(['preview', 'site', 'second', '--ref', 'content/autumn'], env());
    expect(notPreviewed.code).toBe(1);
    expect(notPreviewed.stderr).toContain('[BRANCH_NOT_PREVIEWED]');

    // Pushed again: built again.
    const again = onBranch(
      'content/spring',
      () => p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }, 'Second, again.\n')),
      '2026-03-03T10:00:00Z',
    );
    await pushHook(hook, { ref: 'refs/heads/content/spring' });
    await waitFor(
      () => server.output().includes(`Branch preview content/spring: serving commit ${again.slice(0, 12)}.`),
      server.output,
    );
    expect(await htmlOf(await get(k, '/articles/second', { key: k.previewKey, ref }))).toContain('Second, again.');

    // A broken article: the branch's last good preview stays, and the problem is named.
    const broken = onBranch(
      'content/spring',
      () => p.write('site/articles/broken.md', article({ title: 'Broken', status: 'maybe' })),
      '2026-03-04T10:00:00Z',
    );
    await pushHook(hook, { ref: 'refs/heads/content/spring' });
    await waitFor(
      () =>
        server
          .output()
          .includes(
            `Branch preview content/spring: commit ${broken.slice(0, 12)} does not build; its preview of ${again.slice(0, 12)} stays.`,
          ),
      server.output,
    );
    expect(server.output()).toMatch(
      /^\[preview content\/spring\] content\/site\/articles\/broken\.md:\d+:\d+ {2}unknown status/m,
    );
    expect(await htmlOf(await get(k, '/articles/second', { key: k.previewKey, ref }))).toContain('Second, again.');
    const admin = await signIn(server.output().match(/Publishing app: (\S+)\/admin/)![1]!);
    const tab = await (await admin.get(`/admin/sites/site/articles?ref=${encodeURIComponent(ref)}`)).text();
    expect(tab).toContain('<option value="content/spring" selected="">');
    expect(tab).toContain('broken.md');
    expect(tab).toContain('unknown status');
    const followedTab = await (await admin.get('/admin/sites/site/articles')).text();
    expect(followedTab).not.toContain('broken.md');
    expect(followedTab).toContain('main (followed: what is published)');

    // Pushes elsewhere are acknowledged and ignored; a deleted branch's preview is gone.
    expect(await (await pushHook(hook, { ref: 'refs/heads/feature/x' })).json()).toMatchObject({ status: 'ignored' });
    p.git('push', '-q', 'origin', `:${ref}`);
    await pushHook(hook, { ref: `refs/heads/${ref}`, deleted: true });
    await waitFor(
      () => server.output().includes(`Branch preview ${ref} removed: the branch is gone from the remote.`),
      server.output,
    );
    const gone = await get(k, '/articles/first', { key: k.previewKey, ref });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('REF_NOT_FOUND');
    expect(fs.existsSync(branchPaths(branchPreviewsDir(p.stateDir), ref).dir)).toBe(false);
    expect(eventsReceived()).toHaveLength(events);
  });

  it('previews at most QUIRE_PREVIEW_BRANCHES_MAX branches, dropping the least recently pushed, and serves them again after a restart', async () => {
    const { p, remote, onBranch } = authorAndRemote();
    const start = () =>
      startCli(
        ['start', '--follow', remote, '--interval', '1', '--previews', '*'],
        { ...env(), PORT: '0', QUIRE_PREVIEW_BRANCHES_MAX: '2' },
        /Branch previews: .*\n/,
      );
    let server = await start();
    cleanups.push(() => server.stop());
    const serving = (branch: string, commit: string) =>
      waitFor(
        () => server.output().includes(`Branch preview ${branch}: serving commit ${commit.slice(0, 12)}.`),
        server.output,
      );
    const note = (name: string) => () => p.write(`site/articles/${name}.md`, article({ title: name, status: 'draft' }));
    await serving('a', onBranch('a', note('on-a'), '2026-03-02T10:00:00Z'));
    await serving('b', onBranch('b', note('on-b'), '2026-03-03T10:00:00Z'));
    await serving('c', onBranch('c', note('on-c'), '2026-03-04T10:00:00Z'));
    await waitFor(
      () =>
        server
          .output()
          .includes(
            'Branch preview a removed: more than 2 branches match * (QUIRE_PREVIEW_BRANCHES_MAX), and it is the least recently pushed.',
          ),
      server.output,
    );
    const k = await keysOf(server.output());
    const status = async (ref: string, slug: string) =>
      (await get(k, `/articles/${slug}`, { key: k.previewKey, ref })).status;
    expect(await status('a', 'on-a')).toBe(404);
    expect(await status('b', 'on-b')).toBe(200);
    expect(await status('c', 'on-c')).toBe(200);
    expect(await status('c', 'on-b')).toBe(404); // each branch has only its own

    // Pushed again, `a` is the newest: `b` goes.
    await serving('a', onBranch('a', note('on-a-again'), '2026-03-05T10:00:00Z'));
    await waitFor(
      () => server.output().includes('Branch preview b removed: more than 2 branches match'),
      server.output,
    );
    expect(await status('a', 'on-a-again')).toBe(200);
    expect(await status('b', 'on-b')).toBe(404);

    // After a restart the previews are served from what the last run built.
    await server.stop();
    server = await start();
    const after = await keysOf(server.output());
    expect((await get(after, '/articles/on-c', { key: after.previewKey, ref: 'c' })).status).toBe(200);
    expect(server.output()).not.toMatch(/Branch preview [ac] removed/);
  });

  it('never checks out a branch larger than QUIRE_PREVIEW_BRANCH_MAX_BYTES; its last good preview stays', async () => {
    const { p, remote, onBranch } = authorAndRemote();
    const MiB = 1024 * 1024;
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '1', '--previews', 'big'],
      { ...env(), PORT: '0', QUIRE_PREVIEW_BRANCH_MAX_BYTES: String(2 * MiB) },
      /Branch previews: .*\n/,
    );
    cleanups.push(() => server.stop());
    const small = onBranch(
      'big',
      () => p.write('site/articles/small.md', article({ title: 'Small' })),
      '2026-03-02T10:00:00Z',
    );
    await waitFor(
      () => server.output().includes(`Branch preview big: serving commit ${small.slice(0, 12)}.`),
      server.output,
    );
    // 8 MiB of zeros: a few KB over the wire, 8 MiB once checked out.
    const zeros = onBranch(
      'big',
      () => fs.writeFileSync(path.join(p.root, 'zeros.bin'), Buffer.alloc(8 * MiB)),
      '2026-03-03T10:00:00Z',
    );
    await waitFor(
      () => /Branch preview big: fetch failed \(its preview of [0-9a-f]{12} stays\)/.test(server.output()),
      server.output,
    );
    expect(server.output()).toContain(
      `commit ${zeros.slice(0, 12)} was not checked out: it holds files of more than ${2 * MiB} bytes in all (QUIRE_PREVIEW_BRANCH_MAX_BYTES); the largest seen is zeros.bin (${8 * MiB} bytes)  [FOLLOW_SYNC_TOO_LARGE]`,
    );
    const checkout = branchPaths(branchPreviewsDir(p.stateDir), 'big').checkout;
    expect(fs.existsSync(path.join(checkout, 'zeros.bin'))).toBe(false);
    const k = await keysOf(server.output());
    expect((await get(k, '/articles/small', { key: k.previewKey, ref: 'big' })).status).toBe(200);
    // Tried once per commit, not at every tick.
    await new Promise((r) => setTimeout(r, 2500));
    expect(server.output().match(/Branch preview big: fetch failed/g)).toHaveLength(1);
  });
});
