// The prebuilt-body middleware on its own: a body made ahead answered in the coding the request
// prefers, with that variant's ETag, Cache-Control and Vary; 304 for an ETag the request accepts;
// 406 when it accepts none, 503 when the one it accepts cannot be made now.
import zlib from 'node:zlib';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAnswerEncoder } from '../../../src/api/answer-encoding.ts';
import { answerProblems } from '../../../src/api/error-response.ts';
import { etagMatches, prebuiltBody } from '../../../src/api/middleware/prebuilt-body.ts';
import { hashBytes } from '../../../src/export/content-hash.ts';
import type { Body } from '../../../src/snapshot/snapshot-reader.ts';

const text = Array.from({ length: 80 }, (_, i) => `Line ${i}: gears, levers and engines.`).join('\n');
const bytes = new TextEncoder().encode(text);
const BODY: Body = { bytes, etag: `"${hashBytes(bytes)}"` };

function appWith(options: Partial<Parameters<typeof prebuiltBody>[0]> = {}) {
  const app = new Hono();
  app.get(
    '/doc/:name',
    prebuiltBody({
      encoder: createAnswerEncoder(),
      body: (c) => (c.req.param('name') === 'it' ? BODY : undefined),
      contentType: 'text/plain; charset=utf-8',
      ...options,
    }),
    (c) => c.text('not here', 404),
  );
  app.onError(answerProblems());
  return app;
}

const get = (app: Hono, headers: Record<string, string> = {}, method = 'GET') =>
  app.request('/doc/it', { method, headers });

describe('prebuiltBody', () => {
  it('answers identity with its ETag, the content type, an hour of caching and Vary', async () => {
    const res = await get(appWith(), { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(text);
    expect(Object.fromEntries(res.headers)).toEqual({
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      etag: BODY.etag,
      vary: 'Accept-Encoding',
      'content-length': String(bytes.byteLength),
    });
  });

  it("answers the coding the request prefers, with that variant's ETag", async () => {
    const res = await get(appWith(), { 'accept-encoding': 'gzip;q=0.5, br' });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('etag')).toBe(`${BODY.etag.slice(0, -1)}-br"`);
    expect(zlib.brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(text);
  });

  it('answers 304 to an ETag of a variant the request accepts, weak or not, and never one it refuses', async () => {
    const app = appWith();
    const gzipTag = `${BODY.etag.slice(0, -1)}-gzip"`;
    for (const inm of [BODY.etag, `W/${BODY.etag}`, `"other", ${gzipTag}`, '*']) {
      const res = await get(app, { 'accept-encoding': 'gzip, br', 'if-none-match': inm });
      expect(res.status, inm).toBe(304);
      expect(await res.text()).toBe('');
    }
    expect((await get(app, { 'accept-encoding': 'gzip', 'if-none-match': gzipTag })).headers.get('etag')).toBe(gzipTag);
    expect((await get(app, { 'accept-encoding': 'br, gzip;q=0', 'if-none-match': gzipTag })).status).toBe(200);
    expect((await get(app, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('answers HEAD with the headers, Content-Length included, and no body', async () => {
    const res = await get(appWith(), { 'accept-encoding': 'identity' }, 'HEAD');
    expect(res.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(await res.text()).toBe('');
  });

  it('takes the cache, what else the answer varies by and headers of its own from its options', async () => {
    const res = await get(
      appWith({
        cacheControl: (_c, body) => `private, max-age=${body.bytes.byteLength}`,
        varyAlso: ['Authorization'],
        headers: { 'x-content-type-options': 'nosniff' },
      }),
    );
    expect(res.headers.get('cache-control')).toBe(`private, max-age=${bytes.byteLength}`);
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('leaves a request it has no body for to the next handler', async () => {
    const res = await appWith().request('/doc/other');
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('not here');
  });

  it('answers 406 ENCODING_NOT_ACCEPTABLE when the request accepts none of the codings', async () => {
    const res = await get(appWith(), { 'accept-encoding': 'zstd, identity;q=0' });
    expect(res.status).toBe(406);
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ENCODING_NOT_ACCEPTABLE');
  });

  it('answers 503 COMPRESSION_BUSY with Retry-After when the only coding accepted cannot be made now', async () => {
    const res = await get(appWith({ encoder: createAnswerEncoder({ maxInFlight: 0 }) }), {
      'accept-encoding': 'br, identity;q=0',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('COMPRESSION_BUSY');
    // Identity accepted: it gives way to identity.
    const identity = await get(appWith({ encoder: createAnswerEncoder({ maxInFlight: 0 }) }), {
      'accept-encoding': 'br',
    });
    expect(identity.status).toBe(200);
    expect(identity.headers.has('content-encoding')).toBe(false);
  });

  it('refuses options it cannot answer with, when it is made', () => {
    const encoder = createAnswerEncoder();
    expect(() => prebuiltBody({ encoder: {} as typeof encoder, body: () => BODY })).toThrow(/encoder/);
    expect(() => prebuiltBody({ encoder, body: undefined as unknown as () => Body })).toThrow(/body/);
    expect(() => prebuiltBody({ encoder, body: () => BODY, headers: { ETag: '"x"' } })).toThrow(/etag/);
  });

  it('is a named function, for stack traces', () => {
    expect(prebuiltBody({ encoder: createAnswerEncoder(), body: () => BODY }).name).toBe('prebuiltBody');
  });

  it('compares ETags weakly, as If-None-Match does', () => {
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches(' "b" , "a" ', '"a"')).toBe(true);
    expect(etagMatches('*', '"a"')).toBe(true);
    expect(etagMatches('"b"', '"a"')).toBe(false);
    expect(etagMatches(undefined, '"a"')).toBe(false);
  });
});
