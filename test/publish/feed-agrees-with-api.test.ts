// The change feed tells what the Content API serves, whoever made it so: a `quire build` beside a
// running `quire start`, a `dev` rebuild, a go-live, a publish, once each, also with two servers
// on one state store; webhooks stay with `publish` and go-lives. Real processes: a git repository,
// the CLI in child processes, a real HTTPS receiver, the test store (SQLite; PostgreSQL with
// QUIRE_TEST_STORE=postgres).
import { describe, expect, it } from 'vitest';
import { ChangeFeedSchema } from '../../src/contract/changes.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { onPostgres, testDatabaseUrl } from '../helpers/test-store.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const { receiver, project, env } = useReceiverProject();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const post = (title: string, extra: Record<string, string> = {}) =>
  article({ title, status: 'published', publishedAt: '2026-01-01', ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(extra: Record<string, string> = {}): {
  p: TempProject;
  cli: (...args: string[]) => Promise<string>;
  e: Record<string, string>;
} {
  const p = (project.current = createTempProject({ git: true }));
  writeSite(p, 'one');
  p.write('one/articles/a.md', post('A'));
  p.write('one/articles/b.md', post('B'));
  p.commit('content', '2026-01-02T00:00:00Z');
  const e = { ...env(), QUIRE_SECRET: 's'.repeat(40), PORT: '0', ...extra };
  const cli = async (...args: string[]) => {
    const r = await runCli(args, e);
    expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };
  return { p, cli, e };
}

const keyOf = async (cli: (...args: string[]) => Promise<string>) =>
  (JSON.parse(await cli('keys', '--json')) as { site: string; key: string }[]).find((k) => k.site === 'one')!.key;

async function feedOf(api: string, key: string, since?: string) {
  const res = await fetch(`${api}/changes${since ? `?since=${since}` : ''}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  return ChangeFeedSchema.parse(await res.json());
}
const story = (feed: { changes: { type: string; slug: string }[] }) => feed.changes.map((c) => `${c.type}:${c.slug}`);
const sent = () =>
  receiver().requests.map(
    (r) =>
      `${r.headers['x-quire-event']}:${(JSON.parse(r.rawBody.toString()) as { article: { slug: string } }).article.slug}`,
  );

describe('the change feed agrees with the API', { timeout: 120_000 }, () => {
  it('has a build made beside a running server once; `publish` then sends its webhook and records nothing more', async () => {
    const { p, cli, e } = setup();
    await cli('webhook', 'set', 'one', '--url', `${receiver().url}/hooks/one`, '--secret', RECEIVER_SECRET);
    await cli('publish');
    expect(sent().sort()).toEqual(['published:a', 'published:b']);
    const key = await keyOf(cli);
    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${server.match[1]}/v1`;
      const start = await feedOf(api, key);
      expect(story(start).sort()).toEqual(['published:a', 'published:b']);

      p.write('one/articles/a.md', post('A, revised'));
      p.commit('edit a', '2026-01-03T00:00:00Z');
      await cli('build');
      await expect
        .poll(async () => story(await feedOf(api, key, start.cursor)), { timeout: 20_000, interval: 100 })
        .toEqual(['updated:a']);
      expect((await feedOf(api, key, start.cursor)).changes[0]).toMatchObject({ article: { title: 'A, revised' } });
      expect(sent()).toHaveLength(2); // a build sends nothing

      // The webhook is still `publish`'s to send; the feed already has the change.
      expect(await cli('publish')).toMatch(/one: 1 event queued/);
      expect(sent().slice(2)).toEqual(['updated:a']);
      expect(story(await feedOf(api, key, start.cursor))).toEqual(['updated:a']);
    } finally {
      await server.stop();
    }
  });

  it('has a go-live while the server runs once, for a site never published', async () => {
    const { p, cli, e } = setup();
    const key = await keyOf(cli);
    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${server.match[1]}/v1`;
      const start = await feedOf(api, key);
      expect(story(start).sort()).toEqual(['published:a', 'published:b']);

      const goLive = Math.ceil((Date.now() + 6_000) / 1000) * 1000;
      p.write('one/articles/soon.md', post('Soon', { publishedAt: iso(goLive) }));
      p.commit('soon', '2026-01-03T00:00:00Z');
      await cli('build');
      await waitFor(() => server.output().includes('Loaded the new build.'), server.output);
      expect(Date.now()).toBeLessThan(goLive);
      expect(story(await feedOf(api, key, start.cursor))).toEqual([]); // scheduled: not served yet
      await expect
        .poll(async () => story(await feedOf(api, key, start.cursor)), {
          timeout: goLive - Date.now() + 15_000,
          interval: 250,
        })
        .toEqual(['published:soon']);
      await sleep(1_500);
      expect(story(await feedOf(api, key, start.cursor))).toEqual(['published:soon']);
      expect(receiver().requests).toHaveLength(0);
    } finally {
      await server.stop();
    }
  });

  it('has a `dev` rebuild once', async () => {
    const { p, cli, e } = setup();
    const key = await keyOf(cli);
    const server = await startCli(['dev'], e, /Watching /);
    try {
      const api = `${server.output().match(/Content API on (\S+)\/v1/)![1]}/v1`;
      const start = await feedOf(api, key);
      p.write('one/articles/b.md', post('B', { status: 'draft' }));
      await expect
        .poll(async () => story(await feedOf(api, key, start.cursor)), { timeout: 20_000, interval: 100 })
        .toEqual(['withdrawn:b']);
      await sleep(1_500);
      expect(story(await feedOf(api, key, start.cursor))).toEqual(['withdrawn:b']);
    } finally {
      await server.stop();
    }
  });

  it(`has a build two servers on one state store load once${onPostgres ? ' (each with its dist/ and state dir, as on two machines)' : ''}`, async () => {
    // One public URL for every process: the servers and the builds make the same build.
    const { p, cli, e } = setup({ QUIRE_PUBLIC_URL: 'https://content.example.com' });
    const key = await keyOf(cli);
    // SQLite is one machine's: there the two share the state dir (and dist/); PostgreSQL is anyone's.
    const envs = onPostgres
      ? [
          e,
          {
            ...e,
            QUIRE_DIST_DIR: `${p.distDir}-2`,
            QUIRE_STATE_DIR: `${p.stateDir}-2`,
            QUIRE_DATABASE_URL: testDatabaseUrl(p.stateDir)!,
          },
        ]
      : [e, e];
    const servers = [];
    for (const env of envs) servers.push(await startCli(['start'], env, /Listening on \S+:(\d+)\n/));
    try {
      const apis = servers.map((s) => `http://127.0.0.1:${s.match[1]}/v1`);
      const start = await feedOf(apis[0]!, key);
      expect(story(start).sort()).toEqual(['published:a', 'published:b']);
      for (const api of apis) expect(story(await feedOf(api, key, start.cursor))).toEqual([]);

      p.write('one/articles/a.md', post('A, revised'));
      p.commit('edit a', '2026-01-03T00:00:00Z');
      for (const env of new Set(envs)) expect((await runCli(['build'], env)).code).toBe(0);
      for (const s of servers) await waitFor(() => s.output().includes('Loaded the new build.'), s.output);
      await expect
        .poll(async () => story(await feedOf(apis[1]!, key, start.cursor)), { timeout: 20_000, interval: 100 })
        .toEqual(['updated:a']);
      // Whichever recorded it, the other found it recorded (a busy lock is tried again within a second).
      await sleep(2_500);
      for (const api of apis) expect(story(await feedOf(api, key, start.cursor))).toEqual(['updated:a']);
    } finally {
      for (const s of servers) await s.stop();
    }
  });
});
