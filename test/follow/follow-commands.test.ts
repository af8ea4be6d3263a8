// Commands run beside `quire start --follow`, in the server's folder with its settings (a folder
// with Quire and its state dir, no content of its own): they work on the checkout the server
// builds, problems name files as they are in the repository, and a command that finds no content
// at all fails with a problem instead of printing nothing. Real bare repository, the real CLI as
// child processes (in that folder), a real HTTPS receiver.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const { receiver, project, env } = useReceiverProject();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Content, state and dist as Quire finds them from the folder it runs in (empty counts as unset), and `extra`. */
function folderSettings(extra: Record<string, string> = {}): Record<string, string> {
  return {
    QUIRE_CONTENT_DIR: '',
    QUIRE_STATE_DIR: '',
    QUIRE_DIST_DIR: '',
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    QUIRE_PUBLISH_RETRY_WINDOW_MS: '0',
    ...extra,
  };
}

describe('commands beside a server that follows a repository', () => {
  it("find the checkout the server builds: the log's own hint works, keys are the served ones, problems name repository paths", async () => {
    const p = createTempProject({ git: true });
    project.current = p;
    const remote = tempDir('quire-remote-');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    writeSite(p, 'site');
    p.write('site/articles/first.md', article({ title: 'First', status: 'published' }));
    p.commit('first', '2026-03-01T10:00:00Z');
    p.git('remote', 'add', 'origin', remote);
    p.git('push', '-q', 'origin', 'main');
    const reachReceiver = { NODE_EXTRA_CA_CERTS: env().NODE_EXTRA_CA_CERTS! };
    const push = (message: string, date: string) => {
      p.commit(message, date);
      p.git('push', '-q', 'origin', 'main');
    };

    const folder = tempDir('quire-server-'); // no content/ here
    const server = await startCli(
      ['start', '--follow', remote, '--interval', '1'],
      folderSettings({ ...reachReceiver, PORT: '0' }),
      /Following .*\n/,
      30_000,
      folder,
    );
    try {
      // The first publish finds no webhook and says how to set one: that command, run here, works.
      await waitFor(
        () => server.output().includes('(quire webhook set site --url <https-url> --generate-secret)'),
        server.output,
      );
      const set = await runCli(
        ['webhook', 'set', 'site', '--url', `${receiver().url}/hook`, '--secret', RECEIVER_SECRET],
        folderSettings(reachReceiver),
        folder,
      );
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toContain(
        'Content: .quire/follow/checkout/content, the checkout of the server that follows a repository',
      );

      // The keys it prints are the ones the server serves.
      const keys = await runCli(['keys'], folderSettings(), folder);
      expect(keys.code, keys.stderr).toBe(0);
      const servedKey = server.output().match(/ key: (\S+)/)![1]!;
      expect(keys.stdout.split('\t').slice(0, 2)).toEqual(['site', servedKey]);

      // The webhook set here is the server's: its next publish reaches the receiver.
      p.write('site/articles/second.md', article({ title: 'Second', status: 'published' }));
      push('second', '2026-03-02T10:00:00Z');
      await waitFor(
        () =>
          receiver().requests.some((r) => {
            const verified = verifyWebhook(r.rawBody, r.headers as Record<string, string>, RECEIVER_SECRET);
            return verified.ok && verified.payload.article.slug === 'second';
          }),
        server.output,
      );

      // A broken article: the server's log and a build here name it as it is in the repository.
      p.write('site/articles/broken.md', article({ title: 'Broken', status: 'maybe' }));
      push('broken', '2026-03-03T10:00:00Z');
      await waitFor(() => /Nothing was published; the last good build stays up/.test(server.output()), server.output);
      expect(server.output()).toMatch(/^content\/site\/articles\/broken\.md:\d+:\d+ .*\[CONTENT_STATUS_UNKNOWN\]$/m);
      const build = await runCli(['build'], folderSettings(), folder);
      expect(build.code).toBe(1);
      expect(build.stderr).toMatch(/^content\/site\/articles\/broken\.md:\d+:\d+ .*\[CONTENT_STATUS_UNKNOWN\]$/m);
      expect(`${server.output()}${build.stderr}`).not.toContain('checkout/content/site');
    } finally {
      await server.stop();
    }
  });

  it('a command that finds no content fails with a problem, never exit 0 in silence', async () => {
    const folder = tempDir('quire-nothing-');
    const keys = await runCli(['keys'], folderSettings(), folder);
    expect(keys.code).toBe(1);
    expect(keys.stdout).toBe('');
    expect(keys.stderr).toMatch(
      /^no sites in content: there is no such folder {2}\[CONTENT_NO_SITES\]\n {4}hint: .*quire start --follow/,
    );
    const set = await runCli(
      ['webhook', 'set', 'site', '--url', 'https://example.com/hook', '--generate-secret'],
      folderSettings(),
      folder,
    );
    expect(set.code).toBe(1);
    expect(set.stderr).toMatch(/^no sites in content: there is no such folder {2}\[CONTENT_NO_SITES\]/);
    fs.mkdirSync(path.join(folder, 'content'));
    const empty = await runCli(['keys', '--json'], folderSettings(), folder);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toMatch(/^no sites in content: no folder in it holds a site\.yaml {2}\[CONTENT_NO_SITES\]/);
  });
});
