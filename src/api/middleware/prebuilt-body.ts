// Answers with a body whose bytes and ETag are made ahead (the build's, or made once for this
// request), in the content coding the request prefers among those it has (answer-encoding.ts),
// with that variant's ETag, Cache-Control and Vary; 304 when If-None-Match names the ETag of a
// variant the request accepts (a cache holding the gzip variant may reuse it for a request that
// prefers br; never one the request refuses). A coding that cannot be made now (busy) gives way to
// the next; when that leaves none, 503 COMPRESSION_BUSY: identity would break the request's
// `identity;q=0`, and waiting would hold the request and its body while others keep the server
// busy. No acceptable coding at all: 406 ENCODING_NOT_ACCEPTABLE.
import type { Context, Env, MiddlewareHandler } from 'hono';
import type { Body } from '../../snapshot/snapshot-reader.ts';
import { ApiError } from '../api-error.ts';
import { BUSY, type AnswerEncoder, type Selected, type Variant } from '../answer-encoding.ts';

export interface PrebuiltBodyOptions<E extends Env> {
  encoder: AnswerEncoder;
  /** The body that answers the request; undefined: the next handler answers. */
  body: (c: Context<E>) => Body | undefined;
  /** Cache-Control of the answer (default: `public, max-age=3600`). */
  cacheControl?: (c: Context<E>, body: Body) => string;
  contentType?: string;
  /** What the answer varies by besides the coding (e.g. Authorization: it depends on the key). */
  varyAlso?: readonly string[];
  /** Headers every answer carries (CORS, nosniff), made once. */
  headers?: Readonly<Record<string, string>>;
}

const HOUR = () => 'public, max-age=3600';

/** What every answer of one kind of body shares: its type, what it varies by, the headers it carries. */
export interface AnswerShape {
  readonly contentType: string;
  readonly vary: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function answerShape({
  contentType = 'application/octet-stream',
  varyAlso = [],
  headers = {},
}: {
  contentType?: string;
  varyAlso?: readonly string[];
  headers?: Readonly<Record<string, string>>;
}): AnswerShape {
  // Answers differ by the coding whatever else they depend on.
  return { contentType, vary: ['Accept-Encoding', ...varyAlso].join(', '), headers };
}

/** The headers of an answer (a 304's; a 200 adds its length and coding), in the order they are sent. */
export function answerHeaders(shape: AnswerShape, etag: string, cache: string): Record<string, string> {
  return { 'content-type': shape.contentType, 'cache-control': cache, etag, vary: shape.vary, ...shape.headers };
}

/** A 200's headers for `bytes` in `coding`: Content-Length given, not left to the server (a HEAD gets these and no body). */
export function bodyHeaders(shape: AnswerShape, etag: string, cache: string, bytes: Uint8Array, coding: string) {
  const sent = { ...answerHeaders(shape, etag, cache), 'content-length': String(bytes.byteLength) };
  if (coding !== 'identity') (sent as Record<string, string>)['content-encoding'] = coding;
  return sent;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export const prebuiltBody = <E extends Env = Env>({
  encoder,
  body,
  cacheControl = HOUR,
  contentType = 'application/octet-stream',
  varyAlso = [],
  headers = {},
}: PrebuiltBodyOptions<E>): MiddlewareHandler<E> => {
  if (typeof encoder?.candidates !== 'function' || typeof encoder.bytes !== 'function')
    throw new TypeError('prebuiltBody: encoder must be an answer encoder');
  if (typeof body !== 'function') throw new TypeError('prebuiltBody: body must give the body of a request');
  for (const name of ['content-type', 'cache-control', 'etag', 'vary', 'content-length', 'content-encoding']) {
    if (Object.keys(headers).some((h) => h.toLowerCase() === name))
      throw new TypeError(`prebuiltBody: ${name} is the middleware's own header, not one of headers`);
  }
  const shape = answerShape({ contentType, varyAlso, headers });
  const vary = shape.vary;

  function answer(
    chosen: readonly Selected[],
    i: number,
    busy: boolean,
    made: Body,
    cache: string,
  ): Response | Promise<Response> {
    const candidate = chosen[i];
    if (!candidate && busy) {
      throw new ApiError(
        'COMPRESSION_BUSY',
        'the server is compressing as many answers as it allows; try again shortly, or accept identity',
        { 'retry-after': '1', vary },
      );
    }
    if (!candidate)
      throw new ApiError(
        'ENCODING_NOT_ACCEPTABLE',
        'none of the content codings in Accept-Encoding is available; accept identity, br or gzip',
        { vary },
      );
    const respond = (bytes: Variant): Response | Promise<Response> => {
      if (!(bytes instanceof Uint8Array)) return answer(chosen, i + 1, busy || bytes === BUSY, made, cache);
      return new Response(bytes, {
        status: 200,
        headers: bodyHeaders(shape, candidate.etag, cache, bytes, candidate.coding),
      });
    };
    const bytes = encoder.bytes(made, candidate.coding);
    return bytes instanceof Promise ? bytes.then(respond) : respond(bytes);
  }

  return async function prebuiltBody(c, next) {
    const made = body(c);
    if (made === undefined) return next();
    const cache = cacheControl(c, made);
    const candidates = encoder.candidates(made, c.req.header('accept-encoding'));
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch) {
      const held = candidates.find((x) => etagMatches(ifNoneMatch, x.etag));
      if (held) return new Response(null, { status: 304, headers: answerHeaders(shape, held.etag, cache) });
    }
    return answer(candidates, 0, false, made, cache);
  };
};
