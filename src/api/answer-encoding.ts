// Which bytes answer a request for a body: identity or a compressed variant, by the request's
// Accept-Encoding (content-coding.ts), with the variant's own ETag. The build stores variants of
// its lists and articles (src/dist/body-encodings.ts); bodies made at request time (a list
// remade at a go-live, a filtered page, a preview) are compressed here, once per content and at a
// cheaper quality than the build's: the variants are kept by the body's ETag (a hash of its
// bytes, so a remade list can never meet the variant of another), in a cache bounded in bytes,
// and few are made at a time. When that many are under way, a request that accepts identity gets
// identity rather than waiting.
import { encodeAtRequestTime, MIN_ENCODED_BYTES } from '../dist/body-encodings.ts';
import type { Body } from '../dist/dist-reader.ts';
import type { ContentCoding } from '../dist/layout.ts';
import { acceptableCodings, type Coding } from './content-coding.ts';

/** The ETag of `etag`'s content in `coding`: the suffix before the closing quote, as Apache's `-gzip`. */
export const variantEtag = (etag: string, coding: Coding): string => (coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding}"`);

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
  /** The bytes of `body` in `coding` (one of its candidates); null when they cannot be had now (`mayDecline`: busy). */
  bytes(body: Body, coding: Coding, mayDecline: boolean): Uint8Array | Promise<Uint8Array | null> | null;
}

export interface AnswerEncoderOptions {
  /** Bytes of variants kept for bodies made at request time. */
  maxCachedBytes?: number;
  /** Variants made at once (on libuv's thread pool). */
  maxInFlight?: number;
}

export function createAnswerEncoder({ maxCachedBytes = 32 * 2 ** 20, maxInFlight = 4 }: AnswerEncoderOptions = {}): AnswerEncoder {
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

  const onTheFly = (body: Body, coding: ContentCoding, mayDecline: boolean): Uint8Array | Promise<Uint8Array | null> | null => {
    const key = `${body.etag}${coding}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const pending = inFlight.get(key);
    if (pending) return pending;
    if (mayDecline && inFlight.size >= maxInFlight) return null;
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
    bytes(body, coding, mayDecline) {
      if (coding === 'identity') return body.bytes;
      if (body.encoded) return body.encoded[coding] ?? null;
      return onTheFly(body, coding, mayDecline);
    },
  };
}
