// Which bytes answer a request for a body: identity or a compressed variant, by the request's
// Accept-Encoding (content-coding.ts), with the variant's own ETag. The build stores variants of
// its lists and articles (src/export/body-encodings.ts); bodies made at request time (a list
// remade at a go-live, a filtered page, a preview) are compressed here, once per content and at a
// cheaper quality than the build's: the variants are kept by the body's ETag (a hash of its
// bytes, so a remade list can never meet the variant of another), in a cache bounded in bytes.
//
// Few are made at once, whatever the request accepts: each call holds a compressor's memory and
// a thread of libuv's pool (shared with file reads, images and previews, and DNS lookups) until it
// is done, and any key can ask for many distinct pages. Past the cap a request gets another
// coding it accepts (identity, unless refused) and, when none is left, COMPRESSION_BUSY (app.ts).
import { encodeAtRequestTime, MIN_ENCODED_BYTES } from '../export/body-encodings.ts';
import type { Body } from '../snapshot/snapshot-reader.ts';
import type { ContentCoding } from '../export/layout.ts';
import { acceptableCodings, type Coding } from './content-coding.ts';

/** The ETag of `etag`'s content in `coding`: the suffix before the closing quote, as Apache's `-gzip`. */
export const variantEtag = (etag: string, coding: Coding): string =>
  coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding}"`;

/** What bytes() gives when as many variants as allowed are being made: none now, maybe in a moment. */
export const BUSY = 'busy';

/** A body's bytes in a coding; null when there are none (not smaller, or no zlib: the edge). */
export type Variant = Uint8Array | null | typeof BUSY;

export interface Selected {
  coding: Coding;
  etag: string;
}

export interface AnswerEncoder {
  /**
   * The codings `body` can be answered in for this Accept-Encoding, most preferred first, each
   * with its ETag (for If-None-Match); empty when none (406).
   */
  candidates(body: Body, acceptEncoding: string | undefined): Selected[];
  /** The bytes of `body` in `coding` (one of its candidates). */
  bytes(body: Body, coding: Coding): Variant | Promise<Variant>;
}

export interface AnswerEncoderOptions {
  /** Bytes of variants kept for bodies made at request time. */
  maxCachedBytes?: number;
  /**
   * Variants made at once. Two: half of libuv's default pool of four threads, so that file reads
   * and DNS lookups keep the other half; and with brotli 5 a few MiB each, besides the body.
   */
  maxInFlight?: number;
}

const DEFAULT_MAX_CACHED_BYTES = 32 * 2 ** 20;
const DEFAULT_MAX_IN_FLIGHT = 2;

export function createAnswerEncoder({
  maxCachedBytes = DEFAULT_MAX_CACHED_BYTES,
  maxInFlight = DEFAULT_MAX_IN_FLIGHT,
}: AnswerEncoderOptions = {}): AnswerEncoder {
  const cache = new Map<string, Uint8Array>(); // insertion order is use order: the first is the least recent
  let cachedBytes = 0;
  const inFlight = new Map<string, Promise<Uint8Array | null>>();

  const remember = (key: string, bytes: Uint8Array) => {
    if (bytes.byteLength > maxCachedBytes) return;
    cache.set(key, bytes);
    cachedBytes += bytes.byteLength;
    for (const [oldest, old] of cache) {
      if (cachedBytes <= maxCachedBytes) break;
      cache.delete(oldest);
      cachedBytes -= old.byteLength;
    }
  };

  const onTheFly = (body: Body, coding: ContentCoding): Variant | Promise<Variant> => {
    const key = `${body.etag}${coding}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const pending = inFlight.get(key);
    if (pending) return pending;
    if (inFlight.size >= maxInFlight) return BUSY;
    const made = encodeAtRequestTime(body.bytes, coding).then(
      (bytes) => {
        inFlight.delete(key);
        if (bytes) remember(key, bytes);
        return bytes;
      },
      (err: unknown) => {
        inFlight.delete(key);
        throw err;
      },
    );
    inFlight.set(key, made);
    return made;
  };

  return {
    candidates(body, acceptEncoding) {
      const made = body.encoded === undefined && body.bytes.byteLength >= MIN_ENCODED_BYTES;
      return acceptableCodings(acceptEncoding)
        .filter((coding) => coding === 'identity' || made || body.encoded?.[coding] !== undefined)
        .map((coding) => ({ coding, etag: variantEtag(body.etag, coding) }));
    },
    bytes(body, coding) {
      if (coding === 'identity') return body.bytes;
      if (body.encoded) return body.encoded[coding] ?? null;
      return onTheFly(body, coding);
    },
  };
}
