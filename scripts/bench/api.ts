// Content API speed: the real server (createApiApp on @hono/node-server) next to a bare
// node:http server answering the same bytes with the same headers, on loopback. The load comes
// from another process (load-child.mjs): autocannon for saturation throughput, an open-loop
// generator for latency at half the bare server's saturation rate; and 304s.
//   npm run bench -- --only api
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApiApp } from '../../src/api/app.ts';
import { createServerRouter } from '../../src/app/server-router.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { buildExport } from '../../src/compile/build.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createServerObservability } from '../../src/observe/server-observability.ts';
import { routePattern } from '../../src/api/routes.ts';
import { listen } from '../../src/server/serve.ts';
import { writeCorpus } from './corpus.ts';

interface Row {
  route: string;
  server: string;
  mode: string;
  reqPerSec: number;
  p50: number;
  p99: number;
}

const ROUNDS = 3;
const LOAD_CHILD = path.join(import.meta.dirname, 'load-child.mjs');

export interface Load {
  reqPerSec: number;
  p50: number;
  p99: number;
  ok: boolean;
}

/** Saturation (closed loop, autocannon) or a fixed rate (open loop), from a child process. */
export function run(
  url: string,
  headers: Record<string, string>,
  opts: { duration: number; connections: number; rate?: number },
): Promise<Load> {
  const job = {
    mode: opts.rate ? 'rate' : 'saturate',
    url,
    headers,
    connections: opts.connections,
    seconds: opts.duration,
    rate: opts.rate,
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD_CHILD, JSON.stringify(job)], { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      const load = JSON.parse(stdout) as Load;
      if (!load.ok) return reject(new Error(`unexpected answers under load: ${stdout}`));
      resolve(load);
    });
  });
}

export async function benchApi(count = 1000, duration = 10): Promise<Row[]> {
  const roundSeconds = Math.max(2, Math.round(duration / 2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-api-'));
  const settings = {
    contentDir: path.join(dir, 'content'),
    distDir: path.join(dir, 'dist'),
    stateDir: path.join(dir, '.quire'),
    publicUrl: 'http://127.0.0.1',
  };
  writeCorpus(settings.contentDir, count);
  await buildExport(settings);
  const store = openLocalSnapshot(settings.distDir, settings.stateDir);
  store.reload();
  const keyring = createKeyring('k'.repeat(40), { generationOf: () => 0 });
  const key = keyring.keyFor('bench');
  const quire = await listen(createApiApp({ store, keyring, publicUrl: settings.publicUrl }), 0, '127.0.0.1');
  // The server's router as `quire start` runs it (without its host check): one log line per request (to a file, written as to
  // stderr: synchronously) and metrics on.
  const logFile = fs.openSync(path.join(dir, 'requests.log'), 'a');
  const observedServer = (metrics: boolean) => {
    const observed = createServerObservability({
      format: 'text',
      metrics,
      pending: () => ({ count: 0, oldestCreatedAt: null }),
      routePattern,
      write: (chunk) => fs.writeSync(logFile, chunk),
    });
    const app = createServerRouter({
      api: { store, keyring, publicUrl: settings.publicUrl, noteSite: observed.requests.noteSite },
      metrics: observed.metrics,
    });
    return listen(app, 0, '127.0.0.1', undefined, observed.requests.attach);
  };
  const quireLogged = await observedServer(false);
  const quireMetered = await observedServer(true);

  // The bare server: the same bytes and headers, taken from the real server's answers.
  const routes = { list: '/v1/articles', article: '/v1/articles/article-1' };
  const canned = new Map<string, { headers: Record<string, string>; body: Buffer }>();
  for (const route of Object.values(routes)) {
    const res = await fetch(`http://127.0.0.1:${quire.port}${route}`, { headers: { authorization: `Bearer ${key}` } });
    canned.set(route, { headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) });
  }
  const bare = http.createServer((req, res) => {
    const c = canned.get(req.url ?? '')!;
    if (req.headers['if-none-match'] === c.headers.etag) {
      res.writeHead(304, c.headers);
      return res.end();
    }
    res.writeHead(200, c.headers);
    res.end(c.body);
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as AddressInfo).port;

  const rows: Row[] = [];
  const auth = { authorization: `Bearer ${key}` };
  try {
    for (const [name, route] of Object.entries(routes)) {
      // Every measurement in alternating rounds: on a shared machine capacity drifts within
      // minutes, and one run each would compare two different machines. Throughput: the best
      // round of each; latency at the fixed rate: the median round's.
      const etag = canned.get(route)!.headers.etag!;
      const sat = {
        bare: [] as Load[],
        quire: [] as Load[],
        logged: [] as Load[],
        metered: [] as Load[],
        notModified: [] as Load[],
      };
      for (let round = 0; round < ROUNDS; round++) {
        sat.bare.push(
          await run(`http://127.0.0.1:${barePort}${route}`, auth, { duration: roundSeconds, connections: 50 }),
        );
        sat.quire.push(
          await run(`http://127.0.0.1:${quire.port}${route}`, auth, { duration: roundSeconds, connections: 50 }),
        );
        sat.logged.push(
          await run(`http://127.0.0.1:${quireLogged.port}${route}`, auth, { duration: roundSeconds, connections: 50 }),
        );
        sat.metered.push(
          await run(`http://127.0.0.1:${quireMetered.port}${route}`, auth, { duration: roundSeconds, connections: 50 }),
        );
        sat.notModified.push(
          await run(
            `http://127.0.0.1:${quire.port}${route}`,
            { ...auth, 'if-none-match': etag },
            { duration: roundSeconds, connections: 50 },
          ),
        );
      }
      const best = (rounds: Load[]) => rounds.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
      const bareSat = best(sat.bare);
      const mode = `saturation, 50 conns (best of ${ROUNDS})`;
      rows.push({ route: name, server: 'bare node:http', mode, ...bareSat });
      rows.push({ route: name, server: 'Quire', mode, ...best(sat.quire) });
      rows.push({ route: name, server: 'Quire, request log', mode, ...best(sat.logged) });
      rows.push({ route: name, server: 'Quire, request log + metrics', mode, ...best(sat.metered) });
      const rate = Math.round(bareSat.reqPerSec / 2);
      // The bare server at the same rate: on a small machine the load generator shares the cores,
      // and its own jitter is in every p99; its row shows how much.
      const fixed = { bare: [] as Load[], quire: [] as Load[] };
      for (let round = 0; round < ROUNDS; round++) {
        fixed.bare.push(
          await run(`http://127.0.0.1:${barePort}${route}`, auth, { duration: roundSeconds, connections: 16, rate }),
        );
        fixed.quire.push(
          await run(`http://127.0.0.1:${quire.port}${route}`, auth, { duration: roundSeconds, connections: 16, rate }),
        );
      }
      const medianByP99 = (rounds: Load[]) => [...rounds].sort((a, b) => a.p99 - b.p99)[Math.floor(rounds.length / 2)]!;
      const fixedMode = `fixed ${rate} req/s (half bare), median of ${ROUNDS}`;
      rows.push({ route: name, server: 'bare node:http', mode: fixedMode, ...medianByP99(fixed.bare) });
      rows.push({ route: name, server: 'Quire', mode: fixedMode, ...medianByP99(fixed.quire) });
      rows.push({
        route: name,
        server: 'Quire',
        mode: `304 (If-None-Match), 50 conns (best of ${ROUNDS})`,
        ...best(sat.notModified),
      });
    }
  } finally {
    await quire.close();
    await quireLogged.close();
    await quireMetered.close();
    fs.closeSync(logFile);
    bare.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchApi())
    console.log(`| ${r.route} | ${r.server} | ${r.mode} | ${r.reqPerSec.toFixed(0)} | ${r.p50} ms | ${r.p99} ms |`);
}
