// The change feed of a site that has no webhook (it polls), through real parts: a git repository,
// `quire publish` runs and a `quire start` in child processes, a real HTTPS receiver. The server
// records the build it loads and its go-lives and expiries, every publish the site's changes since;
// nothing is sent. A webhook registered later gets what it always got: its first publish sends
// every published article, and one registered again after a gap hears what changed since it was
// last sent, while the feed, already told, gets nothing twice.
import { describe, expect, it } from 'vitest';
import { ChangeFeedSchema } from '../../src/contract/changes.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const post = (title: string, extra: Record<string, string> = {}) =>
  article({ title, status: 'published', publishedAt: '2026-01-01', ...extra });

function setup(): { p: TempProject; cli: (...args: string[]) => Promise<string>; e: Record<string, string> } {
  const p = (project.current = createTempProject({ git: true }));
  writeSite(p, 'one');
  p.write('one/articles/a.md', post('A'));
  p.write('one/articles/b.md', post('B'));
  p.commit('content', '2026-01-02T00:00:00Z');
  const e = { ...env(), QUIRE_SECRET: 's'.repeat(40), PORT: '0' };
  const cli = async (...args: string[]) => {
    const r = await runCli(args, e);
    expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };
  return { p, cli, e };
}

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
const register = (cli: (...args: string[]) => Promise<string>) =>
  cli('webhook', 'set', 'one', '--url', `${receiver().url}/hooks/one`, '--secret', RECEIVER_SECRET);

describe('a site without a webhook', { timeout: 120_000 }, () => {
  it('has its publishes, go-lives and expiries in the feed; a webhook set later gets a first publish', async () => {
    const { p, cli, e } = setup();
    const key = (JSON.parse(await cli('keys', '--json')) as { site: string; key: string }[]).find(
      (k) => k.site === 'one',
    )!.key;
    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${server.match[1]}/v1`;
      // Recorded when the server loaded its build: a publish of it finds nothing new for the feed.
      const start = await feedOf(api, key);
      expect(story(start).sort()).toEqual(['published:a', 'published:b']);

      // Each publish says what it recorded for the feed, and that it sent nothing.
      expect(await cli('publish')).toMatch(
        /one: skipped, no webhook registered: recorded 0 changes for the change feed, nothing sent/,
      );
      p.write('one/articles/c.md', post('C'));
      p.commit('add c', '2026-01-03T00:00:00Z');
      expect(await cli('publish')).toMatch(/recorded 1 change for the change feed, nothing sent/);
      p.write('one/articles/a.md', post('A, revised'));
      p.write('one/articles/b.md', post('B', { status: 'draft' }));
      p.remove('one/articles/c.md');
      p.commit('edit a, withdraw b, delete c', '2026-01-04T00:00:00Z');
      expect(await cli('publish', '--dry-run')).toMatch(/would record 3 changes for the change feed/);
      expect(await cli('publish')).toMatch(/recorded 3 changes for the change feed/);
      expect(await cli('publish')).toMatch(/recorded 0 changes for the change feed/);

      // A go-live and an expiry, recorded by the server at their instants.
      const goLive = Math.ceil((Date.now() + 5_000) / 1000) * 1000;
      p.write('one/articles/soon.md', post('Soon', { publishedAt: iso(goLive) }));
      p.write('one/articles/brief.md', post('Brief', { expiresAt: iso(goLive + 1_000) }));
      p.commit('soon and brief', '2026-01-05T00:00:00Z');
      expect(await cli('publish')).toMatch(/recorded 1 change for the change feed/); // brief
      await expect
        .poll(async () => story(await feedOf(api, key, start.cursor)).slice(-2), {
          timeout: goLive - Date.now() + 15_000,
          interval: 250,
        })
        .toEqual(['published:soon', 'withdrawn:brief']);

      const history = await feedOf(api, key, start.cursor);
      expect(story(history)).toEqual([
        'published:c',
        // One publish's changes in the order its record lists them: published ones, then the rest.
        'updated:a',
        'withdrawn:b',
        'deleted:c',
        'published:brief',
        'published:soon',
        'withdrawn:brief',
      ]);
      expect(history.changes.find((c) => c.type === 'updated')).toMatchObject({ article: { title: 'A, revised' } });
      expect(receiver().requests).toHaveLength(0);

      // Registered now: its first publish sends every published article, as it always did;
      // the feed, already told, gets nothing new.
      await register(cli);
      const first = await cli('publish');
      expect(first).toMatch(/one: 2 events queued, first publish/);
      expect(sent().sort()).toEqual(['published:a', 'published:soon']);
      expect(story(await feedOf(api, key, history.cursor))).toEqual([]);

      // From then on both tell the same story.
      p.write('one/articles/a.md', post('A, third'));
      p.commit('edit a again', '2026-01-06T00:00:00Z');
      await cli('publish');
      expect(sent().slice(2)).toEqual(['updated:a']);
      expect(story(await feedOf(api, key, history.cursor))).toEqual(['updated:a']);
    } finally {
      await server.stop();
    }
  });

  it('a webhook set again after a gap hears what changed since it was last sent; the feed heard it when it happened', async () => {
    const { p, cli, e } = setup();
    await register(cli);
    await cli('publish');
    expect(sent().sort()).toEqual(['published:a', 'published:b']);
    await cli('webhook', 'remove', 'one');

    p.write('one/articles/a.md', post('A, revised'));
    p.commit('edit a', '2026-01-03T00:00:00Z');
    expect(await cli('publish')).toMatch(/recorded 1 change for the change feed, nothing sent/);
    const key = (JSON.parse(await cli('keys', '--json')) as { site: string; key: string }[]).find(
      (k) => k.site === 'one',
    )!.key;
    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${server.match[1]}/v1`;
      const now = await feedOf(api, key);
      expect(now.changes.find((c) => c.slug === 'a')).toMatchObject({ article: { title: 'A, revised' } });

      await register(cli);
      expect(await cli('publish')).toMatch(/one: 1 event queued, since /);
      expect(sent().slice(2)).toEqual(['updated:a']);
      expect(story(await feedOf(api, key, now.cursor))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
