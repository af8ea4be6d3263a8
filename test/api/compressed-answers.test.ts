// Compressed answers through the real server over HTTP: the build stores brotli and gzip variants
// of lists and articles beside them in dist/, and the API picks one by Accept-Encoding, each with
// its own ETag, 304 and Vary; bodies made at request time (filtered pages, a list remade when a
// scheduled article goes live) are compressed on the fly and never with another content's bytes.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerEncoder } from '../../src/api/answer-encoding.ts';
import { createApiApp } from '../../src/api/app.ts';
import { buildExport } from '../../src/compile/build.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const T0 = Date.parse('2026-11-26T12:00:00Z');
const HOUR = 3_600_000;
/** Markdown long enough that its article's body is well over the 1 KiB threshold. */
const LONG = Array.from(
  { length: 30 },
  (_, i) => `Paragraph ${i} says something about engines, gears and *numbers* at some length.\n`,
).join('\n');

let p: TempProject;
let server: RunningServer;
/** The same build, served by a server that makes no variant at request time (always at its cap). */
let busyServer: RunningServer;
let base: string;
let key: string;
let now = T0;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  for (let i = 0; i < 6; i++) {
    p.write(
      `one/articles/long-${i}.md`,
      article({ title: `Long ${i}`, status: 'published', publishedAt: `2026-0${i + 1}-01T00:00:00Z` }, LONG),
    );
  }
  p.write(
    'one/articles/tiny.md',
    article({ title: 'Tiny', status: 'published', publishedAt: '2026-08-01T00:00:00Z' }, 'Hi.\n'),
  );
  p.write(
    'one/articles/soon.md',
    article({ title: 'Soon', status: 'published', publishedAt: '2026-11-26T13:00:00Z' }, LONG),
  );
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'http://127.0.0.1',
      })
    ).ok,
  ).toBe(true);
  const keyring = createKeyring('compressed-answers-secret-0123456789abcdef', { generationOf: () => 1 });
  key = keyring.keyFor('one');
  const store = openLocalSnapshot(p.distDir, p.stateDir);
  store.reload();
  server = await listen(
    createApiApp({ store, keyring, publicUrl: 'http://127.0.0.1', clock: () => now }),
    0,
    '127.0.0.1',
  );
  base = `http://127.0.0.1:${server.port}`;
  busyServer = await listen(
    createApiApp({
      store,
      keyring,
      publicUrl: 'http://127.0.0.1',
      clock: () => now,
      encoder: createAnswerEncoder({ maxInFlight: 0 }),
    }),
    0,
    '127.0.0.1',
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  await busyServer?.close();
  p?.cleanup();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent (not decoded). */
  raw: Buffer;
}

/** A request with exactly these headers (fetch would add and decode Accept-Encoding itself). */
function request(pathname: string, headers: Record<string, string> = {}, method = 'GET', to = base): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${to}${pathname}`,
      { method, headers: { authorization: `Bearer ${key}`, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function decoded(reply: Reply): Buffer {
  const coding = reply.headers['content-encoding'];
  if (coding === 'br') return zlib.brotliDecompressSync(reply.raw);
  if (coding === 'gzip') return zlib.gunzipSync(reply.raw);
  expect(coding).toBeUndefined();
  return reply.raw;
}

const withSuffix = (etag: string, coding: string) => `${etag.slice(0, -1)}-${coding}"`;

describe('compressed variants in dist/', () => {
  it('stores br and gzip beside the list and each article over 1 KiB, as plain files the manifest names', () => {
    const manifest = readManifest(p.distDir)!;
    const site = manifest.sites.one!;
    expect(site.listEncodings).toEqual(['br', 'gzip']);
    expect(site.articles['long-0']!.encodings).toEqual(['br', 'gzip']);
    expect(site.articles.tiny!.encodings).toBeUndefined();
    const file = (rel: string) => fs.readFileSync(path.join(p.distDir, rel));
    for (const rel of ['one/articles.json', 'one/articles/long-0.json']) {
      expect(zlib.brotliDecompressSync(file(`${rel}.br`)).equals(file(rel))).toBe(true);
      expect(zlib.gunzipSync(file(`${rel}.gz`)).equals(file(rel))).toBe(true);
      expect(file(`${rel}.br`).length).toBeLessThan(file(rel).length / 2);
    }
    expect(fs.existsSync(path.join(p.distDir, 'one/articles/tiny.json.br'))).toBe(false);
    expect(fs.existsSync(path.join(p.distDir, 'one/articles/tiny.json.gz'))).toBe(false);
  });
});

describe('answers by Accept-Encoding', () => {
  const ARTICLE = '/v1/articles/long-1';

  it('sends br or gzip with Content-Encoding, its own ETag and Vary; the bytes decode to the identity body', async () => {
    const identity = await request(ARTICLE);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toBe('Accept-Encoding, Authorization');
    const etag = identity.headers.etag!;
    for (const coding of ['br', 'gzip']) {
      const reply = await request(ARTICLE, { 'accept-encoding': coding });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-encoding']).toBe(coding);
      expect(reply.headers.etag).toBe(withSuffix(etag, coding));
      expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
      expect(Number(reply.headers['content-length'])).toBe(reply.raw.length);
      expect(reply.raw.length).toBeLessThan(identity.raw.length / 2);
      expect(decoded(reply).equals(identity.raw)).toBe(true);
    }
  });

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0.8, br;q=0.8', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity', undefined],
    ['identity;q=1, br;q=0.9', undefined],
    ['deflate, zstd', undefined],
    ['br;q=0, gzip;q=0', undefined],
    ['br;q=2', undefined], // a malformed q-value: the entry is ignored
    ['', undefined],
    ['GZIP;Q=0.5', 'gzip'],
    ['identity;q=0, gzip', 'gzip'],
  ])('Accept-Encoding %j answers %s', async (acceptEncoding, coding) => {
    const reply = await request(ARTICLE, { 'accept-encoding': acceptEncoding });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBe(coding);
    expect(JSON.parse(decoded(reply).toString()).slug).toBe('long-1');
  });

  it('answers 406 when identity is refused and no coding it accepts is available', async () => {
    for (const [pathname, acceptEncoding] of [
      [ARTICLE, 'identity;q=0'],
      [ARTICLE, '*;q=0'],
      [ARTICLE, 'zstd, identity;q=0'],
      ['/v1/articles/tiny', 'br, identity;q=0'], // under 1 KiB: no compressed variant
    ] as const) {
      const reply = await request(pathname, { 'accept-encoding': acceptEncoding });
      expect(reply.status, `${pathname} ${acceptEncoding}`).toBe(406);
      expect(JSON.parse(reply.raw.toString()).error.code).toBe('ENCODING_NOT_ACCEPTABLE');
      expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
    }
  });

  it('keeps bodies under 1 KiB in identity, with the same Vary', async () => {
    const reply = await request('/v1/articles/tiny', { 'accept-encoding': 'br, gzip' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
    expect(reply.raw.length).toBeLessThan(1024);
  });

  it("answers 304 to each encoding's ETag, only where the request accepts that encoding", async () => {
    const etag = (await request(ARTICLE)).headers.etag!;
    const br = withSuffix(etag, 'br');
    const gzip = withSuffix(etag, 'gzip');
    const cases: [string, string, number, string][] = [
      ['br', br, 304, br],
      ['gzip', gzip, 304, gzip],
      ['identity', etag, 304, etag],
      ['br, gzip', `W/${br}`, 304, br], // the weak comparison
      // A cache holding the gzip answer may reuse it for a request that prefers br but accepts gzip.
      ['br, gzip', gzip, 304, gzip],
      ['br, gzip', etag, 304, etag], // identity is still acceptable
      ['br, gzip', `"other", ${gzip}, ${br}`, 304, br], // the most preferred held answer
      ['gzip', br, 200, gzip], // br is not acceptable: never confirm a br answer
      ['br, identity;q=0', etag, 200, br], // identity refused
      ['', br, 200, etag],
    ];
    for (const [acceptEncoding, ifNoneMatch, status, answered] of cases) {
      const reply = await request(ARTICLE, { 'accept-encoding': acceptEncoding, 'if-none-match': ifNoneMatch });
      expect([reply.status, reply.headers.etag], `${acceptEncoding} / ${ifNoneMatch}`).toEqual([status, answered]);
      expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
      if (status === 304) {
        expect(reply.raw.length).toBe(0);
        expect(reply.headers['content-encoding']).toBeUndefined();
      }
    }
  });

  it('answers HEAD with the headers of the GET it stands for, Content-Length included', async () => {
    for (const coding of ['br', 'gzip', 'identity']) {
      const get = await request(ARTICLE, { 'accept-encoding': coding });
      const head = await request(ARTICLE, { 'accept-encoding': coding }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.raw.length).toBe(0);
      for (const name of ['content-encoding', 'content-length', 'etag', 'vary', 'content-type'])
        expect(head.headers[name], `${coding} ${name}`).toBe(get.headers[name]);
    }
  });
});

describe('bodies made at request time', () => {
  it('compresses a filtered page on the fly, with the ETag of its own bytes', async () => {
    const identity = await request('/v1/articles?limit=4');
    for (const coding of ['br', 'gzip']) {
      const first = await request('/v1/articles?limit=4', { 'accept-encoding': coding });
      expect(first.headers['content-encoding']).toBe(coding);
      expect(first.headers.etag).toBe(withSuffix(identity.headers.etag!, coding));
      expect(decoded(first).equals(identity.raw)).toBe(true);
      const again = await request('/v1/articles?limit=4', { 'accept-encoding': coding });
      expect(again.raw.equals(first.raw)).toBe(true);
      expect(
        (await request('/v1/articles?limit=4', { 'accept-encoding': coding, 'if-none-match': first.headers.etag! }))
          .status,
      ).toBe(304);
    }
    // Another page is another body: never the first page's bytes.
    const other = await request('/v1/articles?limit=4&offset=1', { 'accept-encoding': 'br' });
    expect(decoded(other).equals((await request('/v1/articles?limit=4&offset=1')).raw)).toBe(true);
  });

  it('serves the list remade when a scheduled article goes live with variants of the new list, never the old', async () => {
    now = T0;
    const slugs = (body: Buffer) =>
      (JSON.parse(body.toString()) as { articles: { slug: string }[] }).articles.map((a) => a.slug);
    const before = {
      identity: await request('/v1/articles'),
      br: await request('/v1/articles', { 'accept-encoding': 'br' }),
      gzip: await request('/v1/articles', { 'accept-encoding': 'gzip' }),
    };
    expect(slugs(before.identity.raw)).not.toContain('soon');
    expect(decoded(before.br).equals(before.identity.raw)).toBe(true);
    expect(decoded(before.gzip).equals(before.identity.raw)).toBe(true);
    // The list as served is not the build's (which holds "soon"): neither are its variants.
    const built = fs.readFileSync(path.join(p.distDir, 'one/articles.json'));
    expect(before.identity.raw.equals(built)).toBe(false);

    now = T0 + HOUR; // "soon" goes live: the list is remade
    for (const coding of ['br', 'gzip']) {
      const identity = await request('/v1/articles');
      const after = await request('/v1/articles', { 'accept-encoding': coding });
      expect(slugs(identity.raw)[0]).toBe('soon');
      expect(after.headers['content-encoding']).toBe(coding);
      expect(decoded(after).equals(identity.raw)).toBe(true);
      expect(after.headers.etag).toBe(withSuffix(identity.headers.etag!, coding));
      expect(after.headers.etag).not.toBe(before[coding as 'br' | 'gzip'].headers.etag);
      // A cache revalidating the old list's variant gets the new list.
      const revalidated = await request('/v1/articles', {
        'accept-encoding': coding,
        'if-none-match': before[coding as 'br' | 'gzip'].headers.etag!,
      });
      expect(revalidated.status).toBe(200);
      expect(decoded(revalidated).equals(identity.raw)).toBe(true);
    }
    // Everything is live now: the list served is the build's, with the build's variants.
    const br = await request('/v1/articles', { 'accept-encoding': 'br' });
    expect(br.raw.equals(fs.readFileSync(path.join(p.distDir, 'one/articles.json.br')))).toBe(true);
  });
});

describe('when as many variants as allowed are being made', () => {
  const busy = (pathname: string, headers: Record<string, string>, method = 'GET') =>
    request(pathname, headers, method, `http://127.0.0.1:${busyServer.port}`);

  it('answers a body made now 503 COMPRESSION_BUSY with Retry-After when identity is refused, for GET and HEAD', async () => {
    for (const acceptEncoding of ['br, identity;q=0', 'br, gzip, identity;q=0', 'gzip, *;q=0']) {
      for (const method of ['GET', 'HEAD']) {
        const reply = await busy('/v1/articles?limit=4', { 'accept-encoding': acceptEncoding }, method);
        expect(reply.status, `${method} ${acceptEncoding}`).toBe(503);
        expect(reply.headers['retry-after']).toBe('1');
        expect(reply.headers['cache-control']).toBe('no-store');
        expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
        expect(reply.headers['content-encoding']).toBeUndefined();
        if (method === 'GET')
          expect(JSON.parse(reply.raw.toString()).error).toMatchObject({ status: 503, code: 'COMPRESSION_BUSY' });
      }
    }
  });

  it('answers identity when the request accepts it, stored variants as ever, and 406 when no coding could be had', async () => {
    const identity = await busy('/v1/articles?limit=4', { 'accept-encoding': 'br, gzip' });
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.raw.equals((await request('/v1/articles?limit=4')).raw)).toBe(true);
    const stored = await busy('/v1/articles/long-1', { 'accept-encoding': 'br, identity;q=0' });
    expect([stored.status, stored.headers['content-encoding']]).toEqual([200, 'br']);
    const refused = await busy('/v1/articles?limit=4', { 'accept-encoding': 'zstd, identity;q=0' });
    expect(refused.status).toBe(406);
    expect(JSON.parse(refused.raw.toString()).error.code).toBe('ENCODING_NOT_ACCEPTABLE');
  });
});
