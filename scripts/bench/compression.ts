// Compressed answers (1,000-article site): what each brotli quality and gzip level costs and
// saves on the build's bodies, the bytes on the wire per coding through the real server, and
// the real server's req/s serving compressed answers next to a bare node:http server answering
// the same compressed bytes with the same headers (load from load-child.mjs, alternating rounds,
// best of each).
//   npm run bench -- --only compression
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createApiApp } from '../../src/api/app.ts';
import { buildExport } from '../../src/compile/build.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { listen } from '../../src/server/serve.ts';
import { writeCorpus } from './corpus.ts';

const ROUNDS = 3;
const LOAD_CHILD = path.join(import.meta.dirname, 'load-child.mjs');

export interface QualityRow {
  setting: string;
  articleRatio: number;
  msPerArticle: number;
  listBytes: number;
  listMs: number;
}
export interface WireRow {
  route: string;
  coding: string;
  bytes: number;
}
export interface SpeedRow {
  route: string;
  coding: string;
  bare: number;
  quire: number;
  /** CPU of this process (where both servers run, one at a time) per answer, median round: less moved by the machine's load than req/s. */
  bareCpuUs: number;
  quireCpuUs: number;
}

interface Load {
  reqPerSec: number;
  ok: boolean;
}

function saturate(url: string, headers: Record<string, string>, seconds: number): Promise<Load> {
  const job = { mode: 'saturate', url, headers, connections: 50, seconds };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD_CHILD, JSON.stringify(job)], { maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      const load = JSON.parse(stdout) as Load;
      if (!load.ok) return reject(new Error(`unexpected answers under load: ${stdout}`));
      resolve(load);
    });
  });
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU and size of each setting over the build's article bodies and its list, in this thread. */
function qualities(articleBodies: Buffer[], list: Buffer): QualityRow[] {
  const brotli = (q: number) => (b: Buffer) =>
    zlib.brotliCompressSync(b, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: q,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length,
      },
    });
  const settings: [string, (b: Buffer) => Buffer][] = [
    ...[4, 5, 6, 7, 8, 9, 10, 11].map((q) => [`brotli ${q}`, brotli(q)] as [string, (b: Buffer) => Buffer]),
    ...[1, 6, 9].map(
      (level) => [`gzip ${level}`, (b: Buffer) => zlib.gzipSync(b, { level })] as [string, (b: Buffer) => Buffer],
    ),
  ];
  const identity = articleBodies.reduce((n, b) => n + b.length, 0);
  return settings.map(([setting, compress]) => {
    for (const b of articleBodies.slice(0, 50)) compress(b); // warm-up
    let t = cpuMs();
    let bytes = 0;
    for (const b of articleBodies) bytes += compress(b).length;
    const msPerArticle = (cpuMs() - t) / articleBodies.length;
    t = cpuMs();
    const listBytes = compress(list).length;
    return { setting, articleRatio: bytes / identity, msPerArticle, listBytes, listMs: cpuMs() - t };
  });
}

function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

export async function benchCompression(
  count = 1000,
  seconds = 4,
): Promise<{ qualities: QualityRow[]; wire: WireRow[]; speed: SpeedRow[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-compression-'));
  const settings = {
    contentDir: path.join(dir, 'content'),
    distDir: path.join(dir, 'dist'),
    stateDir: path.join(dir, '.quire'),
    publicUrl: 'http://127.0.0.1',
  };
  writeCorpus(settings.contentDir, count);
  await buildExport(settings);
  const articlesDir = path.join(settings.distDir, 'bench', 'articles');
  const bodies = fs
    .readdirSync(articlesDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => fs.readFileSync(path.join(articlesDir, f)));
  const quality = qualities(bodies, fs.readFileSync(path.join(settings.distDir, 'bench', 'articles.json')));

  const store = openLocalSnapshot(settings.distDir, settings.stateDir);
  store.reload();
  const keyring = createKeyring('k'.repeat(40), { generationOf: () => 0 });
  const auth = { authorization: `Bearer ${keyring.keyFor('bench')}` };
  const quire = await listen(createApiApp({ store, keyring, publicUrl: settings.publicUrl }), 0, '127.0.0.1');
  const routes = { list: '/v1/articles', article: '/v1/articles/article-1' };
  const codings = ['identity', 'br', 'gzip'];
  // The bare server answers the bytes and headers the real server gave for each coding.
  const canned = new Map<string, { headers: http.IncomingHttpHeaders; body: Buffer }>();
  const wire: WireRow[] = [];
  for (const [route, pathname] of Object.entries(routes)) {
    for (const coding of codings) {
      const answer = await get(`http://127.0.0.1:${quire.port}${pathname}`, { ...auth, 'accept-encoding': coding });
      if ((answer.headers['content-encoding'] ?? 'identity') !== coding)
        throw new Error(`${pathname} was not answered in ${coding}`);
      canned.set(`${pathname} ${coding}`, answer);
      wire.push({ route, coding, bytes: answer.body.length });
    }
  }
  // Only the answer's own headers: not the connection's (`connection: close`, `keep-alive`, `date`).
  const ANSWER_HEADERS = [
    'content-type',
    'content-length',
    'content-encoding',
    'cache-control',
    'etag',
    'vary',
    'x-content-type-options',
    'access-control-allow-origin',
    'access-control-expose-headers',
  ];
  const bare = http.createServer((req, res) => {
    const c = canned.get(`${req.url} ${req.headers['accept-encoding']}`)!;
    res.writeHead(
      200,
      Object.fromEntries(ANSWER_HEADERS.filter((h) => c.headers[h] !== undefined).map((h) => [h, c.headers[h]!])),
    );
    res.end(c.body);
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as AddressInfo).port;

  const speed: SpeedRow[] = [];
  try {
    for (const [route, pathname] of Object.entries(routes)) {
      for (const coding of codings) {
        const headers = { ...auth, 'accept-encoding': coding };
        const runs = { bare: [] as number[], quire: [] as number[], bareCpu: [] as number[], quireCpu: [] as number[] };
        const measure = async (port: number, reqs: number[], cpu: number[]) => {
          const before = cpuMs();
          const load = await saturate(`http://127.0.0.1:${port}${pathname}`, headers, seconds);
          reqs.push(load.reqPerSec);
          cpu.push(((cpuMs() - before) * 1000) / (load.reqPerSec * seconds));
        };
        for (let round = 0; round < ROUNDS; round++) {
          await measure(barePort, runs.bare, runs.bareCpu);
          await measure(quire.port, runs.quire, runs.quireCpu);
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        speed.push({
          route,
          coding,
          bare: Math.max(...runs.bare),
          quire: Math.max(...runs.quire),
          bareCpuUs: median(runs.bareCpu),
          quireCpuUs: median(runs.quireCpu),
        });
      }
    }
  } finally {
    await quire.close();
    bare.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { qualities: quality, wire, speed };
}
