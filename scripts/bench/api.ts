// Content API speed: `quire start` as a user runs it (its own process, the request log on stderr
// to a file), next to a bare node:http server in a process of its own answering the same bytes
// with the same headers, in identity and br, on loopback. The load comes from a third process
// (load-child.mjs): autocannon for saturation throughput, an open-loop generator for latency at
// half the bare server's saturation rate; and 304s. Each server in its own process: in one shared
// with the bench (and with the other server), a collection caused by either stalls both.
//   npm run bench -- --only api
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
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
const BARE_CHILD = path.join(import.meta.dirname, 'bare-child.mjs');
const QUIRE = path.join(import.meta.dirname, '..', '..', 'bin', 'quire.js');

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

/** A port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A child process, and the first line of its stdout matching `ready` (its first group). */
function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  stderrFile: number | 'ignore',
): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', stderrFile] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      const m = ready.exec(seen);
      if (m) resolve({ child, match: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${seen}`)));
  });
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
  const env = {
    ...process.env,
    QUIRE_CONTENT_DIR: settings.contentDir,
    QUIRE_DIST_DIR: settings.distDir,
    QUIRE_STATE_DIR: settings.stateDir,
    // The port `quire start` will listen on, known before the build: the public URL (and so the
    // build's inputs) names it, and the server then starts on the build made here, as a server
    // restarted on CI's build does. (A server that rendered a cold build in its own process serves
    // measurably slower afterwards: docs/benchmarks-log.md, 2026-11-29.)
    PORT: String(await freePort()),
  };
  execFileSync(process.execPath, [QUIRE, 'build'], { env, stdio: 'ignore' });
  const key = (
    JSON.parse(execFileSync(process.execPath, [QUIRE, 'keys', '--json'], { env, encoding: 'utf8' })) as {
      key: string;
    }[]
  )[0]!.key;
  // `quire start` as a user runs it, its request log (stderr) to a file as a service manager keeps it.
  const logFile = fs.openSync(path.join(dir, 'requests.log'), 'a');
  const quire = await startChild([QUIRE, 'start'], env, /Content API on http:\/\/[^:]+:(\d+)\//, logFile);
  const quirePort = Number(quire.match);

  // The bare server: the same bytes and headers, taken from Quire's answers, per coding.
  const routes = { list: '/v1/articles', article: '/v1/articles/article-1' };
  const auth = { authorization: `Bearer ${key}` };
  const canned: Record<string, { headers: Record<string, string>; body: string }> = {};
  for (const route of Object.values(routes))
    for (const [coding, headers] of Object.entries(CODINGS)) {
      const answer = await rawGet(quirePort, route, { ...auth, ...headers, host: `127.0.0.1:${quirePort}` });
      canned[`${coding} ${route}`] = { headers: answer.headers, body: answer.body.toString('base64') };
    }
  const cannedFile = path.join(dir, 'canned.json');
  fs.writeFileSync(cannedFile, JSON.stringify(canned));
  const bare = await startChild([BARE_CHILD, cannedFile], env, /^(\d+)\n/, 'ignore');
  const barePort = Number(bare.match);
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
        const sat = { bare: [] as Load[], quire: [] as Load[] };
        for (let round = 0; round < ROUNDS; round++) {
          sat.bare.push(await run(url(barePort, route), headers, { duration: roundSeconds, connections: 50 }));
          sat.quire.push(await run(url(quirePort, route), headers, { duration: roundSeconds, connections: 50 }));
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
        const rate = Math.round(bareSat.reqPerSec / 2);
        // The bare server at the same rate: on a small machine the load generator shares the cores,
        // and its own jitter is in every p99; its row shows how much.
        const fixed = { bare: [] as Load[], quire: [] as Load[] };
        for (let round = 0; round < ROUNDS; round++) {
          fixed.bare.push(await run(url(barePort, route), headers, { duration: roundSeconds, connections: 16, rate }));
          fixed.quire.push(
            await run(url(quirePort, route), headers, { duration: roundSeconds, connections: 16, rate }),
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
          const etag = canned[`identity ${route}`]!.headers.etag!;
          const notModified: Load[] = [];
          for (let round = 0; round < ROUNDS; round++)
            notModified.push(
              await run(
                url(quirePort, route),
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
    quire.child.kill();
    bare.child.kill();
    fs.closeSync(logFile);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchApi())
    console.log(`| ${r.route} | ${r.server} | ${r.mode} | ${r.reqPerSec.toFixed(0)} | ${r.p50} ms | ${r.p99} ms |`);
}
