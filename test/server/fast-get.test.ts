// The keyed GETs answered before the app (src/server/fast-get.ts) must be the app's answers, byte
// for byte: two real servers over the same build, one with the fast path and one without, are
// sent the same requests (paths, keys, codings, conditional requests, hosts, methods) over real
// sockets, and every status, header (but Date) and body must match. The fast path must also
// really answer the common ones, or the comparison would prove nothing.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerEncoder } from '../../src/api/answer-encoding.ts';
import { KEYED_BODY } from '../../src/api/app.ts';
import { answerShape } from '../../src/api/middleware/prebuilt-body.ts';
import { createServerRouter } from '../../src/app/server-router.ts';
import { buildExport } from '../../src/compile/build.ts';
import { NO_TRUSTED_PROXY } from '../../src/config/trust-proxy.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createFastGet } from '../../src/server/fast-get.ts';
import { allowedHosts, allowedHostsOnly, nodeHostFilter } from '../../src/server/host-check.ts';
import { openListener, type RunningServer } from '../../src/server/serve.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { timedReader } from '../../src/snapshot/timed-view.ts';
import { buildTwoSites } from '../api/fixture.ts';
import { TEST_SECRET } from '../helpers/api-server.ts';
import { article, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
const servers: RunningServer[] = [];
let plain: number;
let fast: number;
let answeredFirst = 0;
const keyring = createKeyring(TEST_SECRET, { generationOf: () => 1 });

beforeAll(async () => {
  p = await buildTwoSites();
  // A body large enough to be stored compressed, and one that expires (its own max-age).
  const long = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} of a long article about engines.`).join('\n\n');
  p.write(
    'alpha/articles/long-read.md',
    article({ title: 'Long read', status: 'published', publishedAt: '2026-01-01T00:00:00Z' }, long),
  );
  const soon = new Date(Date.now() + 2 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  p.write(
    'alpha/articles/going-soon.md',
    article({ title: 'Going soon', status: 'published', publishedAt: '2026-01-02T00:00:00Z', expiresAt: soon }),
  );
  await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  const store = openLocalSnapshot(p.distDir, p.stateDir);
  store.reload();
  const served = timedReader(store);
  const start = async (withFast: boolean) => {
    const server = await openListener(0, '127.0.0.1');
    servers.push(server);
    const hosts = allowedHosts({ publicUrl: null, listenHost: '127.0.0.1', port: server.port });
    const encoder = createAnswerEncoder();
    const router = createServerRouter({
      api: { store: served, keyring, publicUrl: 'http://127.0.0.1', encoder },
      hostCheck: hosts ? allowedHostsOnly(hosts, NO_TRUSTED_PROXY) : null,
    });
    if (!withFast) {
      server.serve(router);
      return server.port;
    }
    const fastGet = createFastGet({
      reader: served,
      keyring,
      encoder,
      shape: answerShape(KEYED_BODY),
      hostAllowed: nodeHostFilter(hosts, NO_TRUSTED_PROXY),
    });
    server.serve(router, (req, res) => {
      const answered = fastGet(req, res);
      if (answered) answeredFirst++;
      return answered;
    });
    return server.port;
  };
  plain = await start(false);
  fast = await start(true);
});

afterAll(async () => {
  for (const s of servers) await s.close();
  p?.cleanup();
});

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** One request on a fresh connection; the headers as sent, in order, with the port written as PORT. */
function send(port: number, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const withHost = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('PORT', String(port))]));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: withHost, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = res.rawHeaders;
        const pairs: [string, string][] = [];
        for (let i = 0; i < raw.length; i += 2)
          if (raw[i]!.toLowerCase() !== 'date') pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks).toString('base64') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('keyed GETs answered before the app', () => {
  it("are the app's own answers, whatever the request", async () => {
    const key = keyring.keyFor('alpha');
    const preview = keyring.previewKeyFor('alpha');
    const other = keyring.keyFor('beta');
    const paths = [
      '/v1/articles',
      '/v1/articles/long-read',
      '/v1/articles/first-steps',
      '/v1/articles/going-soon',
      '/v1/articles/nope',
      '/v1/articles/',
      '/v1/articles?limit=1',
      '/v1/articles/LONG-READ',
      '/v1/articles/long%2Dread',
      '/v1/articles/long-read?x=1',
    ];
    const auths = [
      `Bearer ${key}`,
      `bearer ${key}`,
      `Bearer ${preview}`,
      `Bearer ${other}`,
      'Bearer pk_alpha.forged',
      'Basic abc',
      '',
    ];
    const codings = [
      undefined,
      'br',
      'gzip',
      'br;q=0.5, gzip',
      'identity;q=0',
      'br, identity;q=0',
      '*',
      'deflate',
      'gzip;q=0, br;q=0',
    ];
    const answers: { what: string; a: Answer; b: Answer }[] = [];
    const long = await send(plain, 'GET', '/v1/articles/long-read', {
      authorization: `Bearer ${key}`,
      host: 'localhost:PORT',
      'accept-encoding': 'br',
    });
    const etags = [
      '"nope"',
      '*',
      long.headers.find(([n]) => n === 'etag')![1],
      `W/${long.headers.find(([n]) => n === 'etag')![1]}`,
    ];
    const requests: [string, string, Record<string, string>][] = [];
    for (const path of paths)
      for (const auth of auths)
        for (const coding of codings) {
          const headers: Record<string, string> = { host: 'localhost:PORT' };
          if (auth) headers.authorization = auth;
          if (coding !== undefined) headers['accept-encoding'] = coding;
          requests.push(['GET', path, headers]);
        }
    for (const etag of etags)
      requests.push([
        'GET',
        '/v1/articles/long-read',
        {
          host: 'localhost:PORT',
          authorization: `Bearer ${key}`,
          'accept-encoding': 'gzip, br',
          'if-none-match': etag,
        },
      ]);
    for (const ref of ['main', 'feature/x', '..'])
      requests.push([
        'GET',
        '/v1/articles/long-read',
        { host: 'localhost:PORT', authorization: `Bearer ${key}`, 'quire-ref': ref },
      ]);
    for (const host of ['evil.example', '127.0.0.1:PORT', 'localhost'])
      requests.push(['GET', '/v1/articles', { host, authorization: `Bearer ${key}` }]);
    requests.push(['HEAD', '/v1/articles/long-read', { host: 'localhost:PORT', authorization: `Bearer ${key}` }]);
    requests.push(['POST', '/v1/articles', { host: 'localhost:PORT', authorization: `Bearer ${key}` }]);
    for (const [method, path, headers] of requests) {
      const [a, b] = await Promise.all([send(plain, method, path, headers), send(fast, method, path, headers)]);
      answers.push({ what: `${method} ${path} ${JSON.stringify(headers)}`, a, b });
    }
    for (const { what, a, b } of answers) expect(b, what).toEqual(a);
    // The comparison covers answers the fast path made: stored identity, br and gzip, and 304s.
    expect(answeredFirst).toBeGreaterThan(60);
    const statuses = new Set(answers.map((x) => x.a.status));
    for (const status of [200, 304, 401, 404, 406, 421]) expect(statuses, String(status)).toContain(status);
  }, 120_000);
});
