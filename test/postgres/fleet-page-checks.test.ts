// Live page checks where a fleet delivers: two `quire worker` processes on one PostgreSQL state
// deliver what `publish --no-deliver` queued to the reference site (loopback HTTPS) and check each
// article's page after its delivery: every page is live, each checked once across the fleet, and
// `--per-host 1` holds for deliveries and checks together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';
import { testDatabaseUrl } from '../helpers/test-store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const SECRET = 's'.repeat(40);
const HOOK_SECRET = 'receiver-shared-secret-0123456789';
const SLUGS = ['one', 'two', 'three', 'four', 'five', 'six'];

let p: TempProject;
let siteServer: HttpsApp;
let api: TestApi;
let store: StateStore;
const seen = { paths: [] as string[], inFlight: 0, mostInFlight: 0 };

beforeAll(async () => {
  siteServer = await startHttpsApp();
  p = createTempProject({ git: true });
});
afterAll(async () => {
  await store?.close();
  await api?.close();
  await siteServer?.close();
  p?.cleanup();
});

describe('a fleet of workers checks the pages it delivered', { timeout: 120_000 }, () => {
  it('each page live, each checked once, one request at a time to the capped host', async () => {
    p.write('notes/site.yaml', `name: Notes\nlang: en\nurl: ${siteServer.url}\nverifyAfterDelivery: 0s\n`);
    p.write('notes/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
    for (const slug of SLUGS)
      p.write(
        `notes/articles/${slug}.md`,
        article({ title: slug, status: 'published', author: 'ann' }, `The "${slug}" article.\n`),
      );
    p.commit('articles', '2026-04-01T09:00:00Z');
    const url = testDatabaseUrl(p.stateDir)!;
    const env = {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_DATABASE_URL: url,
      QUIRE_SECRET: SECRET,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: siteServer.caFile,
    };
    const set = await runCli(
      ['webhook', 'set', 'notes', '--url', `${siteServer.url}/webhooks/quire`, '--secret', HOOK_SECRET],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    const queued = await runCli(['publish', '--no-deliver'], env);
    expect(queued.code, queued.stderr).toBe(0);

    // The site reads authors and dates from a Content API over the build just made.
    api = await startTestApi(p);
    const site = createExampleSite({
      secret: HOOK_SECRET,
      apiBase: `${api.url}/v1`,
      apiKey: api.keyring.keyFor('notes'),
      publicUrl: siteServer.url,
    });
    siteServer.setHandler(async (req) => {
      seen.paths.push(new URL(req.url).pathname);
      seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight);
      try {
        return await site.app.fetch(req);
      } finally {
        seen.inFlight--;
      }
    });

    const args = ['worker', '--concurrency', '4', '--per-host', '1'];
    const workers = [await startCli(args, env, /worker started/), await startCli(args, env, /worker started/)];
    store = openStateStore(p.stateDir, SECRET, url);
    try {
      await waitFor(
        async () => (await store.pageChecks.counts('notes')).live === SLUGS.length,
        () => workers.map((w) => w.output()).join('\n---\n'),
        60_000,
      );
    } finally {
      for (const w of workers) await w.stop();
    }
    expect(await store.pageChecks.counts('notes')).toMatchObject({ live: SLUGS.length, pending: 0, unverified: 0 });
    for (const slug of SLUGS)
      expect(
        seen.paths.filter((path) => path === `/blog/${slug}`),
        slug,
      ).toHaveLength(1);
    expect(seen.mostInFlight).toBe(1);
    const stats = JSON.parse((await runCli(['deliveries', '--stats', '--json'], env)).stdout) as {
      delivered: number;
      verification: Record<string, number>;
    };
    expect(stats).toMatchObject({ delivered: SLUGS.length, verification: { live: SLUGS.length } });
  });
});
