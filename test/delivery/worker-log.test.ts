// `quire worker` says what it sends as it sends it: one log line per delivery attempt, as the
// server writes them (text by default, JSON with QUIRE_LOG_FORMAT=json), long before its health
// line (every minute by default). A real worker process against a real HTTPS receiver.
import { afterEach, describe, expect, it } from 'vitest';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const SECRET = 'receiver-shared-secret-for-worker-0123456789';
const receiver = useHttpsReceiver();
let p: TempProject;

afterEach(() => p?.cleanup());

const envFor = (extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  NODE_EXTRA_CA_CERTS: receiver.caFile,
  ...extra,
});

/** Two published articles queued for the workers (`publish --no-deliver`). */
async function queued(): Promise<void> {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/hello.md', article({ title: 'Hello', status: 'published' }));
  p.write('one/articles/again.md', article({ title: 'Again', status: 'published' }));
  const set = await runCli(
    ['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hook`, '--secret', SECRET],
    envFor(),
  );
  expect(set.code, set.stderr).toBe(0);
  const publish = await runCli(['publish', '--no-deliver'], envFor());
  expect(publish.code, publish.stderr).toBe(0);
}

describe('quire worker logs each delivery', { timeout: 60_000 }, () => {
  it('one text line per delivery at the default level, well before the health line', async () => {
    await queued();
    const worker = await startCli(['worker'], envFor(), /worker started/);
    try {
      await waitFor(() => (worker.output().match(/ delivery /g) ?? []).length >= 2, worker.output, 20_000);
      const lines = worker
        .output()
        .split('\n')
        .filter((l) => / delivery /.test(l));
      expect(lines.map((l) => l.replace(/^\S+ delivery \S+ /, '').replace(/ [\d.]+ms$/, '')).sort()).toEqual([
        'site=one published again attempt=1 delivered 200',
        'site=one published hello attempt=1 delivered 200',
      ]);
      expect(worker.output()).not.toMatch(/worker health/); // a minute away: the lines did not wait for it
    } finally {
      await worker.stop();
    }
  });

  it("as JSON lines with QUIRE_LOG_FORMAT=json, the worker's own lines too", async () => {
    await queued();
    const worker = await startCli(['worker'], envFor({ QUIRE_LOG_FORMAT: 'json' }), /worker started/);
    try {
      await waitFor(() => (worker.output().match(/"type":"delivery"/g) ?? []).length >= 2, worker.output, 20_000);
      const json = worker
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(json.filter((l) => l.type === 'delivery')).toEqual([
        expect.objectContaining({
          site: 'one',
          event: 'published',
          attempt: 1,
          result: 'delivered',
          status: 200,
          error: null,
        }),
        expect.objectContaining({
          site: 'one',
          event: 'published',
          attempt: 1,
          result: 'delivered',
          status: 200,
          error: null,
        }),
      ]);
      expect(json).toContainEqual(
        expect.objectContaining({ type: 'message', message: expect.stringMatching(/^worker started/) }),
      );
    } finally {
      await worker.stop();
    }
  });
});
