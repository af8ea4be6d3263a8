// Content API speed: the server as `quire start` serves it (the keyed GETs answered before the
// app, the root router with its host check, a request log) and the API app alone, next to a bare
// node:http server answering the same bytes with the same headers, in identity and br, on
// loopback. The load comes from another process (load-child.mjs): autocannon for saturation
// throughput, an open-loop generator for latency at half the bare server's saturation rate; and 304s.
//   npm run bench -- --only api
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAnswerEncoder } from '../../src/api/answer-encoding.ts';
import { createApiApp, KEYED_BODY } from '../../src/api/app.ts';
import { answerShape } from '../../src/api/middleware/prebuilt-body.ts';
import { routePattern } from '../../src/api/routes.ts';
import { createServerRouter } from '../../src/app/server-router.ts';
import { buildExport } from '../../src/compile/build.ts';
import { NO_TRUSTED_PROXY } from '../../src/config/trust-proxy.ts';
import { createKeyring, type Keyring } from '../../src/keys/api-keys.ts';
import { createServerObservability } from '../../src/observe/server-observability.ts';
import { createFastGet } from '../../src/server/fast-get.ts';
import { allowedHosts, allowedHostsOnly, nodeHostFilter } from '../../src/server/host-check.ts';
import { listen, openListener, type RunningServer } from '../../src/server/serve.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { timedReader, type ServedReader } from '../../src/snapshot/timed-view.ts';
import { writeCorpus } from './corpus.ts';

interface Row {
  route: string;
  server: string;
  mode: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  /** req/s against the bare server's in the same rounds (saturation rows). */
  ratio?: number;
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

/** Raw bytes and headers of one answer, as sent (no decoding, unlike fetch). */
function rawGet(
  port: number,
  route: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: route, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const kept = { ...res.headers } as Record<string, string>;
          for (const h of ['date', 'connection', 'keep-alive']) delete kept[h];
          resolve({ headers: kept, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

/**
 * The Content API as `quire start` serves it: the root router with the host check and a request log
 * line per request (to a file, batched as to stderr), and the keyed GETs answered before it
 * (src/server/fast-get.ts), composed as src/app/server-process.ts composes them.
 */
async function startServerLikeQuireStart(
  store: ServedReader,
  keyring: Keyring,
  logFile: number,
): Promise<RunningServer> {
  const observed = createServerObservability({
    format: 'text',
    metrics: false,
    pending: () => ({ count: 0, oldestCreatedAt: null }),
    routePattern,
    write: (chunk) => fs.writeSync(logFile, chunk),
  });
  const server = await openListener(0, '127.0.0.1', undefined, observed.requests.attach);
  const hosts = allowedHosts({ publicUrl: null, listenHost: '127.0.0.1', port: server.port });
  const encoder = createAnswerEncoder();
  const router = createServerRouter({
    api: { store, keyring, publicUrl: 'http://127.0.0.1', encoder, noteSite: observed.requests.noteSite },
    hostCheck: hosts ? allowedHostsOnly(hosts, NO_TRUSTED_PROXY) : null,
  });
  const fastGet = createFastGet({
    reader: store,
    keyring,
    encoder,
    shape: answerShape(KEYED_BODY),
    hostAllowed: nodeHostFilter(hosts, NO_TRUSTED_PROXY),
    noteSite: observed.requests.noteResponseSite,
  });
  server.serve(router, fastGet);
  return server;
}

/** The codings measured: what a client that sends no Accept-Encoding gets, and brotli. */
const CODINGS = { identity: {}, br: { 'accept-encoding': 'br' } } as Record<string, Record<string, string>>;

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
  const snapshot = openLocalSnapshot(settings.distDir, settings.stateDir);
  snapshot.reload();
  const store = timedReader(snapshot);
  const keyring = createKeyring('k'.repeat(40), { generationOf: () => 0 });
  const key = keyring.keyFor('bench');
  // The API app alone (no router, no host check, no log): what the app itself costs.
  const app = await listen(createApiApp({ store, keyring, publicUrl: settings.publicUrl }), 0, '127.0.0.1');
  const logFile = fs.openSync(path.join(dir, 'requests.log'), 'a');
  const quire = await startServerLikeQuireStart(store, keyring, logFile);

  // The bare server: the same bytes and headers, taken from the real server's answers, per coding.
  const routes = { list: '/v1/articles', article: '/v1/articles/article-1' };
  const auth = { authorization: `Bearer ${key}` };
  const canned = new Map<string, { headers: Record<string, string>; body: Buffer }>();
  for (const route of Object.values(routes))
    for (const [coding, headers] of Object.entries(CODINGS))
      canned.set(
        `${coding} ${route}`,
        await rawGet(quire.port, route, { ...auth, ...headers, host: `127.0.0.1:${quire.port}` }),
      );
  const bare = http.createServer((req, res) => {
    const coding = req.headers['accept-encoding'] === 'br' ? 'br' : 'identity';
    const c = canned.get(`${coding} ${req.url ?? ''}`)!;
    if (req.headers['if-none-match'] === c.headers.etag) {
      res.writeHead(304, c.headers);
      return res.end();
    }
    res.writeHead(200, c.headers);
    res.end(c.body);
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as AddressInfo).port;
  const url = (port: number, route: string) => `http://127.0.0.1:${port}${route}`;

  const rows: Row[] = [];
  try {
    for (const [name, route] of Object.entries(routes)) {
      for (const [coding, codingHeaders] of Object.entries(CODINGS)) {
        const headers = { ...auth, ...codingHeaders };
        const label = `${name}, ${coding}`;
        // Every measurement in alternating rounds: on a shared machine capacity drifts within
        // minutes, and one run each would compare two different machines. Throughput: the best
        // round of each; latency at the fixed rate: the median round's.
        const sat = { bare: [] as Load[], app: [] as Load[], quire: [] as Load[] };
        for (let round = 0; round < ROUNDS; round++) {
          sat.bare.push(await run(url(barePort, route), headers, { duration: roundSeconds, connections: 50 }));
          sat.quire.push(await run(url(quire.port, route), headers, { duration: roundSeconds, connections: 50 }));
          sat.app.push(await run(url(app.port, route), headers, { duration: roundSeconds, connections: 50 }));
        }
        const best = (rounds: Load[]) => rounds.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
        const bareSat = best(sat.bare);
        const mode = `saturation, 50 conns (best of ${ROUNDS})`;
        rows.push({ route: label, server: 'bare node:http, same bytes', mode, ...bareSat });
        rows.push({
          route: label,
          server: 'Quire as `quire start` serves',
          mode,
          ...best(sat.quire),
          ratio: best(sat.quire).reqPerSec / bareSat.reqPerSec,
        });
        rows.push({
          route: label,
          server: 'the API app alone (createApiApp)',
          mode,
          ...best(sat.app),
          ratio: best(sat.app).reqPerSec / bareSat.reqPerSec,
        });
        const rate = Math.round(bareSat.reqPerSec / 2);
        // The bare server at the same rate: on a small machine the load generator shares the cores,
        // and its own jitter is in every p99; its row shows how much.
        const fixed = { bare: [] as Load[], quire: [] as Load[] };
        for (let round = 0; round < ROUNDS; round++) {
          fixed.bare.push(await run(url(barePort, route), headers, { duration: roundSeconds, connections: 16, rate }));
          fixed.quire.push(
            await run(url(quire.port, route), headers, { duration: roundSeconds, connections: 16, rate }),
          );
        }
        const medianByP99 = (rounds: Load[]) =>
          [...rounds].sort((a, b) => a.p99 - b.p99)[Math.floor(rounds.length / 2)]!;
        const fixedMode = `fixed ${rate} req/s (half bare), median of ${ROUNDS}`;
        rows.push({ route: label, server: 'bare node:http, same bytes', mode: fixedMode, ...medianByP99(fixed.bare) });
        rows.push({
          route: label,
          server: 'Quire as `quire start` serves',
          mode: fixedMode,
          ...medianByP99(fixed.quire),
        });
        if (coding === 'identity') {
          const etag = canned.get(`identity ${route}`)!.headers.etag!;
          const notModified: Load[] = [];
          for (let round = 0; round < ROUNDS; round++)
            notModified.push(
              await run(
                url(quire.port, route),
                { ...headers, 'if-none-match': etag },
                { duration: roundSeconds, connections: 50 },
              ),
            );
          rows.push({
            route: label,
            server: 'Quire as `quire start` serves',
            mode: `304 (If-None-Match), 50 conns (best of ${ROUNDS})`,
            ...best(notModified),
          });
        }
      }
    }
  } finally {
    await quire.close();
    await app.close();
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
