// The delivery fleet on PostgreSQL: 20,000 deliveries to 20 loopback HTTPS receivers (another
// process) sent by 1 and by 2 `quire worker` processes (the CLI as users run it), next to a bare
// keep-alive https.request loop at the same concurrency, in alternating rounds; the CPU time each
// process spent per delivery (worker, PostgreSQL, receivers; the bare client and the receivers),
// to see what bounds a run on a shared machine; and what claiming and recording cost per
// delivery in database time, at the worker's batch size. Each sender first sends WARM_UP
// deliveries that are not measured: a worker runs for hours, so its steady state is what counts,
// not its first seconds (compiling its code, TLS handshakes with each receiver); the bare client
// gets the same.
//   npm run bench -- --only fleet
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { deliveryHeaders } from '../../src/delivery/signing.ts';
import { openStateStore } from '../../src/store/state-store.ts';
import { testPki } from '../../test/helpers/https-receiver.ts';
import { findPostgresBin, startPostgres } from '../../test/helpers/postgres-server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Whose `quire worker` runs: this checkout's, or another's given to compare (QUIRE_BENCH_WORKER_ROOT). */
const WORKER_ROOT = process.env.QUIRE_BENCH_WORKER_ROOT ?? ROOT;
const RECEIVERS = 20;
const DELIVERIES = 20_000;
const CONCURRENCY = 16; // per worker (quire worker's default)
const CLAIM_BATCH = 64; // what a worker of concurrency 16 claims at once (4 rounds)
const SECRET = 'bench-server-secret-0123456789abcdef';
const HOOK_SECRET = 'bench-secret-0123456789abcdef';
const ROUNDS = Number(process.env.QUIRE_BENCH_FLEET_ROUNDS ?? 3);
const WARM_UP = Number(process.env.QUIRE_BENCH_FLEET_WARM_UP ?? 10_000);

/** CPU time per delivery, ms, by process. */
export interface CpuPerDelivery {
  sender: number;
  postgres: number;
  receivers: number;
}

export interface FleetRun {
  workers: number;
  quirePerSec: number;
  barePerSec: number;
  /** The workers' (sender), PostgreSQL's and the receivers' CPU per delivery during the fleet run. */
  quireCpu: CpuPerDelivery;
  /** The bare client's (sender) and the receivers' CPU per delivery during the bare run. */
  bareCpu: CpuPerDelivery;
}

export interface FleetResult {
  bytes: number;
  /** Deliveries each sender sent first, unmeasured. */
  warmUp: number;
  runs: FleetRun[];
  claimMsPerDelivery: number;
  recordMsPerDelivery: number;
}

const body = (i: number) =>
  Buffer.from(
    JSON.stringify({
      event: 'published',
      article: {
        id: `a-${i}`,
        slug: `a-${i}`,
        title: `Article ${i}`,
        html: `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(80)}</p>`,
      },
    }),
  );

export async function benchFleet(): Promise<FleetResult> {
  const server = await startPostgres();
  const pki = await testPki();
  const receivers = fork(path.join(import.meta.dirname, 'fleet-receivers-child.mjs'), { stdio: 'inherit' });
  try {
    receivers.send({ key: pki.keyPem, cert: pki.certPem, count: RECEIVERS });
    const [{ ports }] = (await once(receivers, 'message')) as [{ ports: number[] }];
    const urls = ports.map((p) => `https://127.0.0.1:${p}/hook`);
    const bodies = Array.from({ length: DELIVERIES }, (_, i) => body(i));
    const warmUp = Array.from({ length: WARM_UP }, (_, i) => body(DELIVERIES + i));
    const runs: FleetRun[] = [];
    const cpuOfPostgres = () => postgresCpuMs(server.port);
    const cpuOfReceivers = () => processCpuMs(receivers.pid!);
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of [1, 2]) {
        const bare = await runBare(
          urls,
          warmUp,
          bodies,
          CONCURRENCY * workers,
          pki.caPem,
          cpuOfPostgres,
          cpuOfReceivers,
        );
        const quire = await runFleet(
          server.adminUrl,
          urls,
          warmUp,
          bodies,
          workers,
          pki.caFile,
          cpuOfPostgres,
          cpuOfReceivers,
        );
        runs.push({
          workers,
          quirePerSec: quire.perSec,
          barePerSec: bare.perSec,
          quireCpu: quire.cpu,
          bareCpu: bare.cpu,
        });
      }
    }
    const cost = await claimCost(server.adminUrl, bodies);
    return { bytes: bodies[0]!.length, warmUp: WARM_UP, runs, ...cost };
  } finally {
    receivers.send('exit');
    server.stop();
  }
}

function freshDatabase(adminUrl: string): string {
  const name = `quire_bench_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
  execFileSync(path.join(findPostgresBin()!, 'psql'), [adminUrl, '-qAtc', `CREATE DATABASE ${name}`]);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A state with one site per receiver, its schema made; `queue` queues bodies round-robin over the sites. */
async function prepareState(adminUrl: string, urls: string[]) {
  const url = freshDatabase(adminUrl);
  const store = openStateStore(os.tmpdir(), SECRET, url);
  for (const [i, hook] of urls.entries())
    await store.webhooks.save(`site-${i}`, { url: hook, secret: HOOK_SECRET }, Date.now());
  /** Every delivery queued in one transaction, due now (its commit makes them all visible at once); `slug` names each one's article. */
  const queue = (bodies: Buffer[], slug = (i: number) => `a-${i}`) =>
    store.transaction(async (tx) => {
      const now = Date.now();
      for (const [i, b] of bodies.entries())
        await tx.outbox.enqueue(
          { siteId: `site-${i % urls.length}`, slug: slug(i), event: 'published', body: b, origin: 'publish' },
          now,
        );
    });
  const delivered = async () => (await store.outbox.counts()).delivered;
  // Asked during a run, so asked rarely: counting the pending ones takes up to 3 ms at 20,000
  // (counting every delivery, as counts() does, every 50 ms was a good part of the database's work).
  const anyPending = async () => (await store.outbox.pendingSummary()).count > 0;
  return { url, queue, delivered, anyPending, close: () => store.close() };
}

async function runFleet(
  adminUrl: string,
  urls: string[],
  warmUp: Buffer[],
  bodies: Buffer[],
  workers: number,
  caFile: string,
  cpuOfPostgres: () => number,
  cpuOfReceivers: () => number,
) {
  const state = await prepareState(adminUrl, urls);
  const env = {
    ...process.env,
    QUIRE_DATABASE_URL: state.url,
    QUIRE_SECRET: SECRET,
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  const children: ChildProcess[] = [];
  try {
    for (let w = 0; w < workers; w++) {
      const child = spawn(
        process.execPath,
        [path.join(WORKER_ROOT, 'bin/quire.js'), 'worker', '--concurrency', String(CONCURRENCY)],
        { env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      children.push(child);
      let said = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (d: Buffer) => {
          said += d.toString();
          if (/worker started/.test(said)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${said}`)));
      });
    }
    const cpuOfWorkers = () => children.reduce((sum, c) => sum + processCpuMs(c.pid!), 0);
    const settled = async () => {
      while (await state.anyPending()) await new Promise((r) => setTimeout(r, 100));
    };
    await state.queue(warmUp, (i) => `warm-up-${i}`);
    await settled();
    // From the commit of the queue until nothing is pending (the idle workers are woken by it), to 100 ms.
    await state.queue(bodies);
    const run = await measured(
      async () => {
        const started = performance.now();
        await settled();
        return bodies.length / ((performance.now() - started) / 1000);
      },
      bodies.length,
      cpuOfWorkers,
      cpuOfPostgres,
      cpuOfReceivers,
    );
    const delivered = await state.delivered();
    if (delivered !== warmUp.length + bodies.length)
      throw new Error(`${delivered} of ${warmUp.length + bodies.length} delivered`);
    return run;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : null)));
    await state.close();
  }
}

/** Runs `work` (which returns deliveries/s) and the CPU each process spent on it, per delivery. */
async function measured(
  work: () => Promise<number>,
  n: number,
  sender: () => number,
  postgres: () => number,
  receivers: () => number,
) {
  const before = { sender: sender(), postgres: postgres(), receivers: receivers() };
  const perSec = await work();
  const cpu = {
    sender: (sender() - before.sender) / n,
    postgres: (postgres() - before.postgres) / n,
    receivers: (receivers() - before.receivers) / n,
  };
  return { perSec, cpu };
}

const TICK_MS = 10; // /proc times are in clock ticks of 1/100 s (Linux's USER_HZ)

/** User + system CPU of a live process, ms; with `reaped`, also that of its children it has waited for. */
function processCpuMs(pid: number, reaped = false): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  const ticks = Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
  return ticks * TICK_MS;
}

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The CPU of the PostgreSQL server on `port`: the postmaster, its live backends, and those that ended. */
function postgresCpuMs(port: number): number {
  const procs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const postmaster = procs.find((pid) => {
    try {
      return (
        /postgres/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')) &&
        fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(` -p ${port} `)
      );
    } catch {
      return false;
    }
  });
  if (!postmaster) throw new Error(`no PostgreSQL server on port ${port}`);
  let ms = processCpuMs(Number(postmaster), true);
  for (const pid of procs) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === postmaster) ms += processCpuMs(Number(pid));
    } catch {
      // ended meanwhile: counted in the postmaster's reaped children
    }
  }
  return ms;
}

/** The same bytes and headers, round-robin over the receivers, `concurrency` requests at a time: the warm-up ones, then the measured ones. */
async function runBare(
  urls: string[],
  warmUp: Buffer[],
  bodies: Buffer[],
  concurrency: number,
  ca: string,
  cpuOfPostgres: () => number,
  cpuOfReceivers: () => number,
) {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: concurrency,
    secureContext: tls.createSecureContext({ ca }),
  });
  const post = (bodies: Buffer[], i: number) =>
    new Promise<void>((resolve, reject) => {
      const b = bodies[i]!;
      const headers = deliveryHeaders({
        body: b,
        secret: HOOK_SECRET,
        event: 'published',
        deliveryId: `dlv_${i}`,
        timestampSec: Math.floor(Date.now() / 1000),
        attempt: 1,
      });
      const req = https.request(
        urls[i % urls.length]!,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(b.length) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(b);
    });
  const sendAll = async (bodies: Buffer[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) await post(bodies, next++);
      }),
    );
  };
  try {
    await sendAll(warmUp);
    return await measured(
      async () => {
        const started = performance.now();
        await sendAll(bodies);
        return bodies.length / ((performance.now() - started) / 1000);
      },
      bodies.length,
      ownCpuMs,
      cpuOfPostgres,
      cpuOfReceivers,
    );
  } finally {
    agent.destroy();
  }
}

/** Database time of claiming (takeDue) and of recording (recordAttempts), per delivery, in batches of a worker's size. */
async function claimCost(
  adminUrl: string,
  bodies: Buffer[],
): Promise<{ claimMsPerDelivery: number; recordMsPerDelivery: number }> {
  const state = await prepareState(adminUrl, ['https://127.0.0.1:9/hook']);
  await state.queue(bodies);
  await state.close();
  const store = openStateStore(os.tmpdir(), SECRET, state.url);
  let claimMs = 0;
  let recordMs = 0;
  let claimed = 0;
  try {
    for (;;) {
      const now = Date.now();
      let t = performance.now();
      const taken = await store.outbox.takeDue(now, null, CLAIM_BATCH, 'bench', now + 60_000);
      claimMs += performance.now() - t;
      if (!taken.length) break;
      claimed += taken.length;
      t = performance.now();
      await store.outbox.recordAttempts(
        taken.map((d) => ({
          id: d.id,
          attempt: {
            url: 'https://127.0.0.1:9/hook',
            startedAt: now,
            durationMs: 1,
            status: 200,
            error: null,
            replyUrl: null,
            replyId: null,
          },
          verdict: { state: 'delivered' as const },
          now,
        })),
      );
      recordMs += performance.now() - t;
    }
  } finally {
    await store.close();
  }
  if (claimed !== bodies.length) throw new Error(`claimed ${claimed} of ${bodies.length}`);
  return { claimMsPerDelivery: claimMs / claimed, recordMsPerDelivery: recordMs / claimed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchFleet();
  console.log(JSON.stringify(r));
  fs.writeSync(1, '\n');
}
