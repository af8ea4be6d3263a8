// The change feed of `quire start --follow`: the server publishes what it fetches, in its own
// process, and its GET /v1/changes tells it, a force-push's removal included (which a receiver
// that did not opt in to removal events never hears of).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../src/contract/changes.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();

describe('start --follow and the change feed', { timeout: 60_000 }, () => {
  it('tells what the server published from pushes, in order', async () => {
    const p = (project.current = createTempProject({ git: true }));
    const remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-feed-remote-'));
    try {
      execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
      fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
      writeSite(p, 'site');
      p.write('site/articles/first.md', article({ title: 'First', status: 'published' }));
      const first = p.commit('first', '2026-03-01T10:00:00Z');
      p.git('remote', 'add', 'origin', remote);
      p.git('push', '-q', 'origin', 'main');
      const set = await runCli(
        ['webhook', 'set', 'site', '--url', `${receiver().url}/hook`, '--secret', RECEIVER_SECRET],
        env(),
      );
      expect(set.code, set.stderr).toBe(0);

      const server = await startCli(
        ['start', '--follow', remote, '--interval', '1'],
        { ...env(), PORT: '0' },
        /Following .*\n/,
      );
      try {
        const [, key, url] = server.output().match(/curl -H "Authorization: Bearer (\S+)" (\S+)\/articles\n/)!;
        const feed = async (since?: string) =>
          (await (
            await fetch(`${url}/changes${since ? `?since=${since}` : ''}`, {
              headers: { authorization: `Bearer ${key}` },
            })
          ).json()) as ChangeFeed;
        const story = async (since: string) => (await feed(since)).changes.map((c) => `${c.type}:${c.slug}`);
        // Recorded when the server loaded its first build, before it published it.
        const start = await feed();
        expect(start.changes.map((c) => `${c.type}:${c.slug}`)).toEqual(['published:first']);
        await expect.poll(() => receiver().requests.length, { timeout: 20_000 }).toBe(1);

        p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
        p.commit('second', '2026-03-02T10:00:00Z');
        p.git('push', '-q', 'origin', 'main');
        await expect.poll(() => story(start.cursor), { timeout: 20_000 }).toEqual(['published:second']);

        p.git('reset', '-q', '--hard', first);
        p.git('push', '-q', '--force', 'origin', 'main');
        await expect
          .poll(() => story(start.cursor), { timeout: 20_000 })
          .toEqual(['published:second', 'deleted:second']);
        expect(receiver().requests.map((r) => (JSON.parse(r.rawBody.toString()) as { event: string }).event)).toEqual([
          'published',
          'published',
        ]);
      } finally {
        await server.stop();
      }
    } finally {
      fs.rmSync(remote, { recursive: true, force: true });
    }
  });
});
