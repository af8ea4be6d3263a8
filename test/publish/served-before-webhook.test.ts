// A webhook announces what the Content API already serves: a receiver that fetches the article the
// moment a webhook arrives gets the version announced, from a running `quire start` fed by a
// separate `quire publish`, and from a `quire start --follow` that publishes itself. Real processes,
// a real git repository and a real HTTPS receiver that fetches from the running server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordServedBuild } from '../../src/snapshot/served-build.ts';
import { processStartTime } from '../../src/host/processes.ts';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import type { ReceivedRequest } from '../helpers/https-receiver.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();
const remotes: string[] = [];
afterEach(() => {
  for (const dir of remotes.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const ROUNDS = 5;
const version = (n: number) => article({ title: 'A', status: 'published' }, `Version ${n} of a.\n`);

function contentRepo(): TempProject {
  const p = createTempProject({ git: true });
  project.current = p;
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  writeSite(p, 'one');
  p.write('one/articles/a.md', version(0));
  p.commit('first', '2026-03-01T10:00:00Z');
  return p;
}

/** What a receiver that fetches on each webhook saw: the article's html, fetched at once. */
function fetchingReceiver(api: () => { url: string; key: string }): string[] {
  const seen: string[] = [];
  receiver().respond(async (req: ReceivedRequest) => {
    const verified = verifyWebhook(req.rawBody, req.headers as Record<string, string>, RECEIVER_SECRET);
    if (!verified.ok) return { status: 401 };
    const { url, key } = api();
    const res = await fetch(`${url}/v1/articles/${verified.payload.article.slug}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    seen.push(((await res.json()) as { html: string }).html);
    return { status: 200 };
  });
  return seen;
}

async function registerWebhook(): Promise<void> {
  const set = await runCli(
    ['webhook', 'set', 'one', '--url', `${receiver().url}/hook`, '--secret', RECEIVER_SECRET],
    env(),
  );
  expect(set.code, set.stderr).toBe(0);
}

const apiOf = (output: string) => {
  const [, key, url] = output.match(/curl -H "Authorization: Bearer (\S+)" (\S+)\/v1\/articles\n/)!;
  return { url: url!, key: key! };
};

async function waitFor(check: () => boolean, output: () => string, timeoutMs = 20_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !check(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > until) throw new Error(`timed out:\n${output()}`);
  }
}

describe('a webhook is sent once the running server serves what it announces', { timeout: 120_000 }, () => {
  it('`quire publish` beside a running `quire start`: the receiver fetches the new version every time', async () => {
    const p = contentRepo();
    await registerWebhook();
    expect((await runCli(['publish', '--baseline'], env())).code).toBe(0);
    const server = await startCli(['start'], { ...env(), PORT: '0' }, /Publishing app: /);
    try {
      const seen = fetchingReceiver(() => apiOf(server.output()));
      for (let n = 1; n <= ROUNDS; n++) {
        p.write('one/articles/a.md', version(n));
        p.commit(`version ${n}`, `2026-03-0${n + 1}T10:00:00Z`);
        const r = await runCli(['publish'], env());
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/Delivered 1 of 1 attempt\./);
        expect(r.stderr).not.toMatch(/previous build/); // the server was quick: no warning
        expect(seen).toHaveLength(n);
        expect(seen[n - 1], `round ${n}`).toContain(`Version ${n} of a.`);
      }
    } finally {
      await server.stop();
    }
    expect(fs.existsSync(path.join(p.stateDir, 'served-build.json'))).toBe(false); // a stopped server serves nothing
  });

  it('`quire publish` while the running server is sending a queued delivery waits for its outcome instead of calling it pending', async () => {
    const p = contentRepo();
    await registerWebhook();
    expect((await runCli(['publish', '--baseline'], env())).code).toBe(0);
    p.write('one/articles/a.md', version(1));
    p.commit('version 1', '2026-03-02T10:00:00Z');
    expect((await runCli(['publish', '--no-deliver'], env())).code).toBe(0);
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    receiver().respond(async () => {
      await held;
      return { status: 200 };
    });
    const server = await startCli(['start'], { ...env(), PORT: '0' }, /Publishing app: /);
    try {
      await waitFor(() => receiver().requests.length === 1, server.output, 30_000); // the server's worker is sending it
      const publishing = runCli(['publish'], env());
      setTimeout(release, 1500);
      const r = await publishing;
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stderr).toMatch(/Waiting for 1 delivery another sender \(a running server or worker\) is sending/);
      expect(r.stderr).not.toMatch(/pending/);
      expect(receiver().requests).toHaveLength(1);
    } finally {
      release();
      await server.stop();
    }
  });

  it('a server that does not take up the build holds the webhooks for 10 s at most, then they go with a warning; none runs: no wait', async () => {
    const p = contentRepo();
    await registerWebhook();
    receiver().respond(() => ({ status: 200 }));
    // A live process (this one) recorded as serving this dist/, stuck on another build.
    recordServedBuild(p.stateDir, {
      pid: process.pid,
      distDir: p.distDir,
      buildId: 'a-build-never-served',
      publicUrl: 'http://localhost:8787',
    });
    let started = Date.now();
    let r = await runCli(['publish'], env());
    const waited = Date.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `warning: the running server \\(pid ${process.pid}\\) still serves the previous build after 10\\.\\d s; sending anyway`,
      ),
    );
    expect(waited).toBeGreaterThanOrEqual(10_000);
    expect(receiver().requests).toHaveLength(1);

    fs.rmSync(path.join(p.stateDir, 'served-build.json'));
    p.write('one/articles/a.md', version(1));
    p.commit('version 1', '2026-03-02T10:00:00Z');
    started = Date.now();
    r = await runCli(['publish'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/server/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(receiver().requests).toHaveLength(2);

    if (process.platform !== 'linux') return; // start times are read from /proc
    // A server killed by SIGKILL left its record, and its pid went to another process (this one,
    // which started at another time): that is no server, nothing is waited for.
    const startedAt = processStartTime(process.pid)! - 1;
    fs.writeFileSync(
      path.join(p.stateDir, 'served-build.json'),
      JSON.stringify({
        pid: process.pid,
        startedAt,
        distDir: path.resolve(p.distDir),
        buildId: 'a-build-never-served',
      }),
    );
    p.write('one/articles/a.md', version(2));
    p.commit('version 2', '2026-03-03T10:00:00Z');
    started = Date.now();
    r = await runCli(['publish'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/server/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(receiver().requests).toHaveLength(3);
  });

  it('`quire start --follow` serves each new commit before it sends the webhook', async () => {
    const p = contentRepo();
    const remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
    remotes.push(remote);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    p.git('remote', 'add', 'origin', remote);
    p.git('push', '-q', 'origin', 'main');
    await registerWebhook();
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '1'],
      { ...env(), PORT: '0' },
      /Following .*\n/,
    );
    try {
      const seen = fetchingReceiver(() => apiOf(server.output()));
      await waitFor(() => seen.length === 1, server.output); // the first publish: version 0
      expect(seen[0]).toContain('Version 0 of a.');
      for (let n = 1; n <= 3; n++) {
        p.write('one/articles/a.md', version(n));
        p.commit(`version ${n}`, `2026-03-0${n + 1}T10:00:00Z`);
        p.git('push', '-q', 'origin', 'main');
        await waitFor(() => seen.length === n + 1, server.output);
        expect(seen[n], `round ${n}`).toContain(`Version ${n} of a.`);
      }
    } finally {
      await server.stop();
    }
  });
});
