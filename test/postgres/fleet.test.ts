// A fleet of `quire worker` processes on one PostgreSQL state, against one HTTPS receiver on
// loopback that counts the requests it has open (in all and per article): one worker is killed
// in the middle of a delivery; nothing is lost, no article's deliveries overlap or reorder, the
// per-host cap holds across the fleet, and each delivery is recorded once as delivered. Then
// SIGTERM, `publish --no-deliver` and `deliveries --stats`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFleetWorker } from '../../src/delivery/fleet-worker.ts';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { startCountingReceiver, type CountingReceiver } from '../helpers/counting-receiver.ts';
import { testPki } from '../helpers/https-receiver.ts';
import { runCli, spawnCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite } from '../helpers/temp-content.ts';
import { testDatabaseUrl } from '../helpers/test-store.ts';

const SECRET = 's'.repeat(40);
const HOOK_SECRET = 'receiver-shared-secret-0123456789';

/** The receiver of a test, closed after it. */
async function startReceiver(delayMs: number): Promise<CountingReceiver> {
  const r = await startCountingReceiver({ delayMs });
  cleanups.push(() => r.close());
  return r;
}

function openStore(dir: string, databaseUrl: string): StateStore {
  const s = openStateStore(dir, SECRET, databaseUrl);
  cleanups.push(() => s.close());
  return s;
}

let receiver: CountingReceiver;
let caFile: string;
let stateDir: string;
let url: string;
let store: StateStore;
const cleanups: (() => Promise<void>)[] = [];
const workerEnv = () => ({
  QUIRE_STATE_DIR: stateDir,
  QUIRE_DATABASE_URL: url,
  QUIRE_SECRET: SECRET,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  NODE_EXTRA_CA_CERTS: caFile,
  QUIRE_WEBHOOK_TIMEOUT_MS: '5000',
});

beforeAll(async () => {
  caFile = (await testPki()).caFile;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fleetState(delayMs: number) {
  receiver = await startReceiver(delayMs);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-fleet-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  stateDir = dir;
  url = testDatabaseUrl(stateDir)!;
  store = openStore(stateDir, url);
  await store.webhooks.save('one', { url: `${receiver.origin}/hook`, secret: HOOK_SECRET }, Date.now());
}

/** `perSlug` deliveries for each of `slugs` articles, in order (redeliveries: none replaces another). */
async function enqueue(slugs: number, perSlug: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < perSlug; n++) {
    for (let s = 0; s < slugs; s++) {
      const slug = `article-${s}`;
      ids.push(
        await store.outbox.enqueue(
          {
            siteId: 'one',
            slug,
            event: 'updated',
            body: Buffer.from(JSON.stringify({ slug, n })),
            origin: 'redeliver',
          },
          Date.now(),
        ),
      );
    }
  }
  return ids;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function delivered200PerDelivery(): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = (
      await client.query<{ id: string; n: number }>(
        'SELECT delivery_id AS id, count(*)::int AS n FROM attempts WHERE status = 200 GROUP BY delivery_id',
      )
    ).rows;
    return new Map(rows.map((r) => [r.id, r.n]));
  } finally {
    await client.end();
  }
}

describe('a fleet of workers on PostgreSQL', { timeout: 120_000 }, () => {
  it('three workers, one killed mid-delivery: nothing lost, no overlap, the host cap held, each recorded once', async () => {
    await fleetState(120);
    const ids = await enqueue(15, 4);
    const args = ['worker', '--concurrency', '4', '--per-host', '3', '--health-interval', '1'];
    const workers = [
      await startCli(args, workerEnv(), /worker started/),
      await startCli(args, workerEnv(), /worker started/),
    ];
    const doomed = spawnCli(args, workerEnv());
    // Killed while its requests are open at the receiver.
    await waitFor('requests', async () => receiver.arrivals.length >= 12);
    process.kill(-doomed.child.pid!, 'SIGKILL');
    await doomed.result;
    await waitFor('every delivery settled', async () => (await store.outbox.counts()).pending === 0);
    for (const w of workers) await w.stop();

    expect(await store.outbox.counts()).toMatchObject({ pending: 0, delivered: ids.length, failed: 0 });
    const recorded = await delivered200PerDelivery();
    expect(ids.map((id) => recorded.get(id) ?? 0)).toEqual(ids.map(() => 1));
    expect(receiver.maxOpen).toBeLessThanOrEqual(3);
    expect(receiver.maxOpen).toBeGreaterThan(1); // the workers did send in parallel
    expect(receiver.overlaps).toBe(0);
    // Each article's deliveries arrived in the order they were queued (a repeat after the kill aside).
    const firstArrival = new Map<string, number>();
    receiver.arrivals.forEach((a, i) => firstArrival.has(a.id) || firstArrival.set(a.id, i));
    for (let s = 0; s < 15; s++) {
      const ofSlug = ids.filter((_, i) => i % 15 === s);
      const order = ofSlug.map((id) => firstArrival.get(id)!);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    // The killed worker's requests were sent again by the others: at least once, never lost.
    expect(new Set(receiver.arrivals.map((a) => a.id)).size).toBe(ids.length);
    for (const w of workers) expect(w.output()).toMatch(/worker stopped, nothing left in flight: \d+ sent, 0 failed/);
  });

  it('SIGTERM: stops claiming, finishes what is in flight, exits 0; the rest stays queued, unclaimed', async () => {
    await fleetState(600);
    await enqueue(8, 1);
    const worker = spawnCli(['worker', '--concurrency', '2'], workerEnv());
    await waitFor('requests', async () => receiver.arrivals.length >= 2);
    process.kill(worker.child.pid!, 'SIGTERM');
    const result = await worker.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/SIGTERM: no new claims; finishing what is in flight/);
    const counts = await store.outbox.counts();
    expect(counts.delivered).toBe(receiver.arrivals.length); // what was in flight was finished and recorded
    expect(counts.delivered + counts.pending).toBe(8);
    expect(counts.pending).toBeGreaterThan(0);
    expect((await store.outbox.stats(Date.now(), 0)).inFlight).toBe(0); // nothing left claimed
  });
});

describe('an idle worker', { timeout: 120_000 }, () => {
  it('is woken by a delivery being queued (NOTIFY), not left to its poll', async () => {
    await fleetState(0);
    const pki = await testPki();
    const workerStore = openStore(stateDir, url);
    const client = createSafeClient({ allowPrivate: true, ca: pki.caPem, log: () => {} });
    cleanups.push(async () => client.close());
    let idle = 0;
    let onIdle: () => void = () => {};
    const deps = {
      store: workerStore,
      client,
      now: Date.now,
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    };
    // A poll far longer than the test may take: only the notification can make it look again.
    const worker = startFleetWorker(deps, {
      concurrency: 2,
      perHost: null,
      healthIntervalMs: 3_600_000,
      pollMs: 3_600_000,
      onIdle: () => (idle++, onIdle()),
    });
    cleanups.push(() => worker.stop());
    const idleAgain = () => new Promise<void>((resolve) => (onIdle = resolve));

    await (idle ? Promise.resolve() : idleAgain()); // it found nothing due and waits
    let sent = idleAgain();
    const ids = await enqueue(1, 1); // by another connection, as publish --no-deliver queues
    await sent;
    expect(receiver.arrivals.map((a) => a.id)).toEqual(ids);
    expect(await store.outbox.counts()).toMatchObject({ pending: 0, delivered: 1 });
    expect(idle).toBe(2);

    // Every time, not only the first.
    sent = idleAgain();
    const [again] = await enqueue(1, 1);
    await sent;
    expect(receiver.arrivals.map((a) => a.id)).toEqual([...ids, again]);
    expect(idle).toBe(3);
  });
});

describe('publish --no-deliver and deliveries --stats', { timeout: 120_000 }, () => {
  let p: ReturnType<typeof createTempProject>;
  afterAll(() => p?.cleanup());

  it('publish queues only and says so; the stats show it pending; a worker sends it', async () => {
    receiver = await startReceiver(0);
    p = createTempProject({ git: true });
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'A', status: 'published' }, 'Body.\n'));
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }, 'Body.\n'));
    p.commit('first', '2026-03-01T10:00:00Z');
    url = testDatabaseUrl(p.stateDir)!;
    const env = {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_DATABASE_URL: url,
      QUIRE_SECRET: SECRET,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: caFile,
    };
    expect(
      (await runCli(['webhook', 'set', 'one', '--url', `${receiver.origin}/hook`, '--secret', HOOK_SECRET], env)).code,
    ).toBe(0);
    // The receiver needs a slug in the body: the payload's article has one.
    const published = await runCli(['publish', '--no-deliver'], env);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(/Queued only \(--no-deliver\): 2 deliveries wait for the workers/);
    expect(receiver.arrivals).toEqual([]);
    const before = JSON.parse((await runCli(['deliveries', '--stats', '--json'], env)).stdout) as Record<
      string,
      unknown
    >;
    expect(before).toMatchObject({ pending: 2, delivered: 0, inFlight: 0, lastHour: { delivered: 0, failed: 0 } });
    expect(before.oldestPendingAgeSeconds).toEqual(expect.any(Number));
    const worker = await startCli(['worker'], env, /worker started/);
    store = openStore(p.stateDir, url);
    await waitFor('the queued deliveries', async () => (await store.outbox.counts()).delivered === 2);
    await worker.stop();
    const after = await runCli(['deliveries', '--stats'], env);
    expect(after.stdout).toMatch(/^pending +0\n/);
    expect(after.stdout).toMatch(/last hour +2 delivered, 0 failed attempts/);
  });
});
