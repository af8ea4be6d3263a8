// The edge: the Worker under workerd (Miniflare) next to the Node server, same build, same
// requests (article, list, 304), on loopback; and `quire deploy` of a large build to a real
// S3-protocol server (s3rver) on loopback, cold and with one article changed.
//   npm run bench -- --only edge,deploy
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { createServerRouter } from '../../src/app/server-router.ts';
import { buildExport } from '../../src/compile/build.ts';
import { deploy, edgeKeyGenerations } from '../../src/deploy/deploy.ts';
import { planExport } from '../../src/deploy/export-plan.ts';
import { openS3Store } from '../../src/deploy/s3-object-store.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { listen } from '../../src/server/serve.ts';
import { Miniflare } from 'miniflare';
import { startLocalEdge } from '../../src/deploy/local-edge.ts';
import { WORKER_COMPATIBILITY_DATE } from '../../src/deploy/worker-bundle.ts';
import { run, type Load } from './api.ts';
import { editArticle, writeCorpus } from './corpus.ts';

const SECRET = 'edge-bench-secret-0123456789abcdef0123456789';

const saturate = (url: string, headers: Record<string, string>, seconds: number): Promise<Load> =>
  run(url, headers, { duration: seconds, connections: 50 });

export interface EdgeRow {
  request: string;
  node: Load;
  edge: Load;
}

const HELLO_WORKER = `export default { fetch() { return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }); } };`;
const best = (loads: Load[]) => loads.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));

/** Node server vs the Worker under workerd over a build of `count` articles: best of `rounds` alternating rounds. */
export async function benchEdge(count = 1000, rounds = 3, seconds = 5): Promise<EdgeRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-edge-'));
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
  const keyring = createKeyring(SECRET, { generationOf: () => 1 });
  // The server's router: the API with /healthz beside it (the baseline row).
  const node = await listen(
    createServerRouter({ api: { store, keyring, publicUrl: settings.publicUrl } }),
    0,
    '127.0.0.1',
  );
  const edge = await startLocalEdge({
    ...settings,
    secret: SECRET,
    publicUrl: settings.publicUrl,
    pointerTtlSeconds: 10,
  });
  await edge.deploy();
  const auth = { authorization: `Bearer ${keyring.keyFor('bench')}` };
  const nodeUrl = `http://127.0.0.1:${node.port}`;
  try {
    const etag = (await fetch(`${nodeUrl}/v1/articles/article-1`, { headers: auth })).headers.get('etag')!;
    const requests: [string, string, Record<string, string>][] = [
      ['article', '/v1/articles/article-1', auth],
      ['list', '/v1/articles', auth],
      ['304 (article, If-None-Match)', '/v1/articles/article-1', { ...auth, 'if-none-match': etag }],
    ];
    const rows: EdgeRow[] = [];
    // The runtime's own ceiling on this path: a Worker that answers a constant, under the same Miniflare.
    const hello = new Miniflare({
      modules: true,
      script: HELLO_WORKER,
      compatibilityDate: WORKER_COMPATIBILITY_DATE,
      host: '127.0.0.1',
      port: 0,
    });
    const helloUrl = (await hello.ready).href;
    try {
      const got = { node: [] as Load[], edge: [] as Load[] };
      for (let round = 0; round < rounds; round++) {
        got.node.push(await saturate(`${nodeUrl}/healthz`, {}, seconds));
        got.edge.push(await saturate(helloUrl, {}, seconds));
      }
      rows.push({
        request: 'baseline: Node /healthz vs a Worker answering a constant',
        node: best(got.node),
        edge: best(got.edge),
      });
    } finally {
      await hello.dispose();
    }
    for (const [request, route, headers] of requests) {
      const got = { node: [] as Load[], edge: [] as Load[] };
      for (let round = 0; round < rounds; round++) {
        got.node.push(await saturate(`${nodeUrl}${route}`, headers, seconds));
        got.edge.push(await saturate(`${edge.url}${route}`, headers, seconds));
      }
      rows.push({ request, node: best(got.node), edge: best(got.edge) });
    }
    return rows;
  } finally {
    await edge.close();
    await node.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface DeployRow {
  run: string;
  uploaded: number;
  skipped: number;
  megabytes: number;
  seconds: number;
}

/** `quire deploy`'s code of a build of `count` articles to s3rver: cold, then with one article changed. */
export async function benchDeploy(count = 10_000): Promise<DeployRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-deploy-'));
  const settings = {
    contentDir: path.join(dir, 'content'),
    distDir: path.join(dir, 'dist'),
    stateDir: path.join(dir, '.quire'),
    publicUrl: 'https://api.example.com',
  };
  writeCorpus(settings.contentDir, count);
  await buildExport(settings);
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: path.join(dir, 's3'),
    configureBuckets: [{ name: 'bench', configs: [] }],
  });
  const { port } = await server.run();
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const s3 = openS3Store({ bucket: 'bench', prefix: '', endpoint: `http://127.0.0.1:${port}`, region: 'auto' });
  // As `quire deploy` does it: plan from dist/ (read and hash every file), then deploy.
  const timed = async (run: string): Promise<DeployRow> => {
    const started = performance.now();
    const manifest = readManifest(settings.distDir)!;
    const s = await deploy({
      store: s3,
      plan: planExport(settings.distDir, manifest),
      keyGenerations: edgeKeyGenerations(manifest, null),
    });
    return {
      run,
      uploaded: s.uploaded,
      skipped: s.skipped,
      megabytes: s.uploadedBytes / 2 ** 20,
      seconds: (performance.now() - started) / 1000,
    };
  };
  try {
    const rows = [await timed(`cold, ${count} articles`), await timed('again, nothing changed')];
    editArticle(settings.contentDir, 7, 'bench');
    await buildExport(settings);
    rows.push(await timed('one article changed'));
    return rows;
  } finally {
    s3.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
