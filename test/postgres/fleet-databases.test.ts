// "Two workers on two databases' worth of sites" (the fleet tests of the PostgreSQL state), read
// both ways it can be, with real parts: real git repositories published by `quire publish
// --no-deliver`, `quire worker` processes, databases on the test PostgreSQL server, and one
// HTTPS receiver on loopback that counts the requests it has open.
// - Two databases on one server, each a state of its own (the same site ids and articles in
//   both), each with two workers: the workers of a database send exactly its deliveries and
//   never the other's, both drain, each delivery is recorded once as delivered in its own
//   database, and the per-host cap holds per fleet (it is kept in each database: two fleets on
//   two databases each take their cap of one receiving host, side by side).
// - One database holding the sites of two former SQLite states, with two workers. `quire state
//   migrate-to-postgres` copies into an empty database only: the first state is copied, the
//   second is refused with a message that says why and what to do, and its sites join the
//   database by publishing them there. Every delivery of both, the copied ones included, is sent
//   once, one article's never overlapping, within the cap across both workers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { startCountingReceiver, type CountingReceiver } from '../helpers/counting-receiver.ts';
import { testPki } from '../helpers/https-receiver.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { testDatabaseUrl } from '../helpers/test-store.ts';

const SECRET = 's'.repeat(40);
const HOOK_SECRET = 'receiver-shared-secret-0123456789';
const PER_HOST = 2;
const WORKER_ARGS = ['worker', '--concurrency', '4', '--per-host', String(PER_HOST), '--health-interval', '1'];

let caFile: string;
const cleanups: (() => unknown)[] = [];
beforeAll(async () => {
  caFile = (await testPki()).caFile;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A content repository with `sites`, `articles` published articles each, committed. */
function contentRepo(sites: string[], articles: number): TempProject {
  const p = createTempProject({ git: true });
  cleanups.push(() => p.cleanup());
  for (const site of sites) {
    writeSite(p, site);
    for (let n = 0; n < articles; n++)
      p.write(
        `${site}/articles/post-${n}.md`,
        article({ title: `${site} ${n}`, status: 'published', publishedAt: '2026-01-01' }),
      );
  }
  p.commit('content', '2026-01-02T00:00:00Z');
  return p;
}

/** The environment of `quire` on `p`'s content with the state in `databaseUrl` ('' : SQLite in its state dir). */
const envOf = (p: TempProject, databaseUrl: string) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_DATABASE_URL: databaseUrl,
  QUIRE_SECRET: SECRET,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  NODE_EXTRA_CA_CERTS: caFile,
  QUIRE_WEBHOOK_TIMEOUT_MS: '30000',
});

async function cli(env: Record<string, string>, ...args: string[]): Promise<string> {
  const r = await runCli(args, env);
  expect(r.code, `quire ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Webhooks of `sites` to the receiver under `/<prefix>/<site>`, then everything queued, nothing sent. */
async function queueAll(
  env: Record<string, string>,
  receiver: CountingReceiver,
  prefix: string,
  sites: string[],
): Promise<void> {
  for (const site of sites)
    await cli(env, 'webhook', 'set', site, '--url', `${receiver.origin}/${prefix}/${site}`, '--secret', HOOK_SECRET);
  expect(await cli(env, 'publish', '--no-deliver')).toMatch(/Queued only \(--no-deliver\)/);
}

function openStore(p: TempProject, databaseUrl: string): StateStore {
  const s = openStateStore(p.stateDir, SECRET, databaseUrl);
  cleanups.push(() => s.close());
  return s;
}

async function deliveryIds(store: StateStore): Promise<string[]> {
  return (await store.outbox.list()).map((d) => d.id).sort();
}

/** Per delivery of the store, how many attempts recorded it delivered (200). */
async function deliveredRecords(store: StateStore, ids: string[]): Promise<number[]> {
  const log = await store.outbox.attemptLog();
  return ids.map((id) => log.filter((a) => a.deliveryId === id && a.status === 200).length);
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startWorkers(env: Record<string, string>, n: number) {
  const workers = await Promise.all(Array.from({ length: n }, () => startCli(WORKER_ARGS, env, /worker started/)));
  cleanups.push(() => Promise.all(workers.map((w) => w.stop())));
  return workers;
}

/** What a stopped worker says it sent: the sum of its health lines (each tells its own interval), none failed. */
function sentBy(output: string): number {
  expect(output).toMatch(/worker stopped, nothing left in flight: \d+ sent, 0 failed/);
  expect(output).not.toMatch(/[1-9]\d* failed in the last/);
  return [...output.matchAll(/: (\d+) sent, \d+ failed in the last/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}
const idsAt = (receiver: CountingReceiver, prefix: string) =>
  receiver.arrivals
    .filter((a) => a.path.startsWith(`/${prefix}/`))
    .map((a) => a.id)
    .sort();

describe('delivery workers and databases', { timeout: 180_000 }, () => {
  it("two databases, two workers on each: each fleet sends exactly its own database's deliveries, once, within its own host cap", async () => {
    // Requests are held until each fleet has its cap open at once: the fleets are measured side by side.
    const receiver = await startCountingReceiver({
      delayMs: 150,
      groupOf: (p) => p.split('/')[1]!,
      holdUntil: (open) => open.get('a') === PER_HOST && open.get('b') === PER_HOST,
      holdTimeoutMs: 20_000,
    });
    cleanups.push(() => receiver.close());
    const sites = ['news', 'blog'];
    const fleets = await Promise.all(
      ['a', 'b'].map(async (prefix) => {
        const p = contentRepo(sites, 8); // the same sites and articles in both states
        const url = testDatabaseUrl(p.stateDir)!;
        const env = envOf(p, url);
        await queueAll(env, receiver, prefix, sites);
        const store = openStore(p, url);
        return { prefix, env, store, ids: await deliveryIds(store) };
      }),
    );
    for (const f of fleets) expect(f.ids).toHaveLength(16);
    expect(receiver.arrivals).toEqual([]);

    const workers = await Promise.all(fleets.map((f) => startWorkers(f.env, 2)));
    await waitFor('both databases drained', async () =>
      (await Promise.all(fleets.map(async (f) => (await f.store.outbox.counts()).pending))).every((n) => n === 0),
    );
    for (const w of workers.flat()) await w.stop();

    expect(receiver.holdTimedOut).toBe(false); // both fleets had their cap open at once
    fleets.forEach((f, i) => {
      // Workers of this database sent as many as it holds, and the receiver got exactly its ids there.
      expect(workers[i]!.map((w) => sentBy(w.output())).reduce((a, b) => a + b)).toBe(f.ids.length);
      expect(idsAt(receiver, f.prefix)).toEqual(f.ids);
      // The cap of one receiving host, per fleet: reached, never exceeded.
      expect(receiver.maxOpenOf.get(f.prefix)).toBe(PER_HOST);
    });
    for (const f of fleets) {
      expect(await f.store.outbox.counts()).toMatchObject({ pending: 0, delivered: f.ids.length, failed: 0 });
      expect(await deliveredRecords(f.store, f.ids)).toEqual(f.ids.map(() => 1));
    }
    expect(receiver.arrivals).toHaveLength(32); // none sent twice, none of one database by the other's workers
    expect(receiver.maxOpen).toBe(2 * PER_HOST);
    expect(receiver.overlaps).toBe(0);
  });

  it('one database with the sites of two former SQLite states: the second copy is refused clearly; two workers send all of both once, within the cap', async () => {
    const receiver = await startCountingReceiver({ delayMs: 100 });
    cleanups.push(() => receiver.close());
    // Two SQLite states, each with deliveries queued and not sent.
    const north = contentRepo(['north'], 6);
    const south = contentRepo(['south'], 6);
    await queueAll(envOf(north, ''), receiver, 'hooks', ['north']);
    await queueAll(envOf(south, ''), receiver, 'hooks', ['south']);
    expect(fs.existsSync(path.join(north.stateDir, 'quire.db'))).toBe(true);
    const northIds = await deliveryIds(openStore(north, ''));
    expect(northIds).toHaveLength(6);

    const sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-shared-db-'));
    cleanups.push(() => fs.rmSync(sharedDir, { recursive: true, force: true }));
    const shared = testDatabaseUrl(sharedDir)!;
    expect(await cli(envOf(north, shared), 'state', 'migrate-to-postgres')).toMatch(
      /1 webhook, 6 deliveries, 0 attempts, 1 site/,
    );
    const store = openStore(north, shared);
    const copied = await store.outbox.counts();
    const refused = await runCli(['state', 'migrate-to-postgres'], envOf(south, shared));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const dbName = new URL(shared).pathname.slice(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `the PostgreSQL state at 127\\.0\\.0\\.1:\\d+/${dbName} as postgres is not empty: nothing was copied \\(it holds 1 webhook, 6 deliveries, 1 published site; two states are not merged into one`,
      ),
    );
    expect(refused.stderr).toMatch(
      /Copy into a new, empty database; or, to serve this state's sites from that one, register their webhooks and publish them there/,
    );
    expect(await store.outbox.counts()).toEqual(copied);

    // The second state's sites join by being published into the database (receivers upsert).
    await queueAll(envOf(south, shared), receiver, 'hooks', ['south']);
    const ids = await deliveryIds(store);
    expect(ids).toHaveLength(12);
    expect(ids).toEqual(expect.arrayContaining(northIds)); // the copied deliveries, as they were queued

    const workers = await startWorkers(envOf(north, shared), 2);
    await waitFor('the database drained', async () => (await store.outbox.counts()).pending === 0);
    for (const w of workers) await w.stop();
    expect(await store.outbox.counts()).toMatchObject({ pending: 0, delivered: 12, failed: 0 });
    expect(await deliveredRecords(store, ids)).toEqual(ids.map(() => 1));
    expect(receiver.arrivals.map((a) => a.id).sort()).toEqual(ids);
    expect(new Set(receiver.arrivals.map((a) => a.path))).toEqual(new Set(['/hooks/north', '/hooks/south']));
    expect(receiver.maxOpen).toBeLessThanOrEqual(PER_HOST);
    expect(receiver.maxOpen).toBeGreaterThan(1); // the workers sent in parallel
    expect(receiver.overlaps).toBe(0);
    expect(workers.map((w) => sentBy(w.output())).reduce((a, b) => a + b)).toBe(12);
  });
});
