// The encoder of bodies made at request time, with real zlib: how many variants it makes at once
// whatever the request accepts, and what it answers past that (BUSY, for app.ts to try the next
// coding or answer 503), while shared, cached and stored variants are answered as ever.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BUSY, createAnswerEncoder, type Variant } from '../../src/api/answer-encoding.ts';
import { hashBytes } from '../../src/export/content-hash.ts';
import type { Body } from '../../src/snapshot/snapshot-reader.ts';

/** A page made now: no stored variants. */
function page(n: number): Body {
  const bytes = new TextEncoder().encode(
    JSON.stringify({
      page: n,
      articles: Array.from({ length: 400 }, (_, i) => ({ slug: `a-${n}-${i}`, title: `Article ${i} of page ${n}` })),
    }),
  );
  return { bytes, etag: `"${hashBytes(bytes)}"` };
}

const decoded = (variant: Variant, coding: 'br' | 'gzip') => {
  if (!(variant instanceof Uint8Array)) throw new Error(`no bytes: ${String(variant)}`);
  return coding === 'br' ? zlib.brotliDecompressSync(variant) : zlib.gunzipSync(variant);
};

describe('variants made at request time', () => {
  it('makes at most maxInFlight at once, whatever the coding; past that BUSY, until one is done', async () => {
    const encoder = createAnswerEncoder({ maxInFlight: 2 });
    const [a, b, c] = [page(1), page(2), page(3)];
    const first = encoder.bytes(a, 'br');
    const second = encoder.bytes(b, 'gzip');
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    expect(encoder.bytes(c, 'br')).toBe(BUSY);
    expect(encoder.bytes(c, 'gzip')).toBe(BUSY);
    expect(encoder.bytes(a, 'gzip')).toBe(BUSY); // another coding of a body under way is another variant
    expect(encoder.bytes(c, 'identity')).toBe(c.bytes);
    // The variant under way is shared, not made again.
    expect(encoder.bytes(a, 'br')).toBe(first);
    expect(decoded(await first, 'br').equals(a.bytes)).toBe(true);
    expect(decoded(await second, 'gzip').equals(b.bytes)).toBe(true);

    const third = encoder.bytes(c, 'br');
    expect(third).toBeInstanceOf(Promise);
    expect(decoded(await third, 'br').equals(c.bytes)).toBe(true);
  });

  it('answers made and stored variants while busy', async () => {
    const encoder = createAnswerEncoder({ maxInFlight: 1 });
    const a = page(1);
    const made = await encoder.bytes(a, 'br');
    const busy = encoder.bytes(page(2), 'br');
    expect(busy).toBeInstanceOf(Promise);
    expect(encoder.bytes(page(3), 'br')).toBe(BUSY);
    expect(encoder.bytes(a, 'br')).toBe(made); // from the cache
    const stored = new Uint8Array([1, 2, 3]);
    expect(encoder.bytes({ ...page(4), encoded: { br: stored } }, 'br')).toBe(stored);
    expect(encoder.bytes({ ...page(5), encoded: {} }, 'gzip')).toBeNull();
    await busy;
  });
});
