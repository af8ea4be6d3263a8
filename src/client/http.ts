// One GET against the Content API: the key as a bearer token, If-None-Match from the cache and the
// cached body back on 304, and every failure turned into a typed error (errors.ts).
import type { ApiErrorCode } from '../contract/error-codes.ts';
import { QuireApiError, QuireCursorExpiredError, QuireNetworkError } from './errors.ts';

/** What the cache keeps for one URL: the ETag and the body it names, as text (so a cache can be persisted). */
export interface CachedResponse {
  etag: string;
  body: string;
}

/**
 * Where ETags and bodies are kept between calls: a `Map` will do; so will anything with these two
 * methods (a KV store, an LRU). Keys are request URLs. ETags are hashes of the exact bytes, so one
 * cache can be shared by clients with different keys: a 304 only ever confirms identical bytes.
 */
export interface ResponseCache {
  get(url: string): CachedResponse | undefined | Promise<CachedResponse | undefined>;
  set(url: string, value: CachedResponse): unknown;
}

export interface HttpOptions {
  key: string;
  fetch: typeof globalThis.fetch;
  cache: ResponseCache | undefined;
}

/** GETs `url` and returns its JSON body (the cached one on 304). Throws QuireApiError or QuireNetworkError. */
export async function getJson(url: string, options: HttpOptions): Promise<unknown> {
  const cached = options.cache ? await options.cache.get(url) : undefined;
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, accept: 'application/json' };
  if (cached) headers['if-none-match'] = cached.etag;
  let res: Response;
  try {
    res = await options.fetch(url, { headers });
  } catch (err) {
    throw new QuireNetworkError(`GET ${url} failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  if (res.status === 304 && cached) return JSON.parse(cached.body);
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new QuireNetworkError(
      `GET ${url}: the body did not arrive: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (!res.ok) throw errorFrom(res, text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new QuireApiError(null, res.status, `GET ${url}: the body is not JSON`);
  }
  const etag = res.headers.get('etag');
  if (options.cache && etag) await options.cache.set(url, { etag, body: text });
  return body;
}

function errorFrom(res: Response, text: string): QuireApiError {
  const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      if (error.code === 'CURSOR_EXPIRED') return new QuireCursorExpiredError(res.status, error.message);
      return new QuireApiError(error.code as ApiErrorCode, res.status, error.message, retryAfter);
    }
  } catch {
    // Not JSON: answered below as an unexpected response.
  }
  return new QuireApiError(null, res.status, `HTTP ${res.status} without the API's error body`, retryAfter);
}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date from now. */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
