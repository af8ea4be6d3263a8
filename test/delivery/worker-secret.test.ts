// `quire worker` on a machine without the server's secret: the webhook secrets it would sign with
// were sealed under another one. It says so and stops before claiming anything, so the queued
// delivery stays pending for a worker that can send it (not held by a worker that crashed).
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SERVER_SECRET = 'the-server-secret-0123456789-abcdefghij';
const OTHER_SECRET = 'another-machines-secret-0123456789-abcdef';

let p: TempProject;
afterEach(() => p?.cleanup());

describe('quire worker with another server secret than the webhooks were saved under', () => {
  it('names the problem and what to set, exits 1, and leaves the queued delivery pending', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write(
      'one/articles/a.md',
      article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
    );
    const env = (secret: string) => ({
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_SECRET: secret,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    });
    // Nothing listens there: nothing may be sent in this test anyway.
    const set = await runCli(
      ['webhook', 'set', 'one', '--url', 'https://127.0.0.1:9/hook', '--generate-secret'],
      env(SERVER_SECRET),
    );
    expect(set.code, set.stderr).toBe(0);
    const queued = await runCli(['publish', '--no-deliver'], env(SERVER_SECRET));
    expect(queued.code, queued.stderr).toBe(0);

    const worker = await runCli(['worker'], env(OTHER_SECRET));
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain(
      "quire worker: the webhook secret of one cannot be opened with this worker's server secret (QUIRE_SECRET): give every worker the same QUIRE_SECRET as the server that saved the webhooks. Nothing was claimed.",
    );

    const stats = await runCli(['deliveries', '--stats', '--json'], env(SERVER_SECRET));
    expect(JSON.parse(stats.stdout)).toMatchObject({ pending: 1, inFlight: 0, delivered: 0, failed: 0 });
  });
});
