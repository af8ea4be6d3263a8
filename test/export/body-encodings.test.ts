// The settings of compressed variants: the build's stay as they were (brotli 6 under 64 KiB, 8
// above, gzip 6), and a body made at request time is compressed more cheaply (brotli 5), since
// any key can ask for many distinct ones.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeAtRequestTime, encodeForExport, encodeForExportNow } from '../../src/export/body-encodings.ts';

/** Brotli as body-encodings.ts calls it: text mode, the size as a hint, a window no larger than the body. */
const brotli = (bytes: Uint8Array, quality: number) =>
  zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      [zlib.constants.BROTLI_PARAM_LGWIN]: Math.max(10, Math.ceil(Math.log2(bytes.byteLength + 1))),
    },
  });

const list = (items: number) =>
  new TextEncoder().encode(
    JSON.stringify({
      articles: Array.from({ length: items }, (_, i) => ({
        slug: `article-${i}`,
        title: `Article ${i}`,
        excerpt: `About ${(i * 7919) % 1000} things, ${i % 13} of them new.`,
      })),
    }),
  );

describe('compression settings', () => {
  it.each([
    ['an article-sized body', 200, 6],
    ['a list', 3000, 8],
  ])('the build compresses %s as before (brotli %i at build time, gzip 6)', async (_, items, quality) => {
    const bytes = list(items);
    for (const variants of [await encodeForExport(bytes), encodeForExportNow(bytes)]) {
      expect(Buffer.from(variants.br!).equals(brotli(bytes, quality))).toBe(true);
      expect(Buffer.from(variants.gzip!).equals(zlib.gzipSync(bytes, { level: 6 }))).toBe(true);
    }
  });

  it('compresses a body made at request time with brotli 5, gzip 6', async () => {
    for (const items of [200, 3000]) {
      const bytes = list(items);
      const br = (await encodeAtRequestTime(bytes, 'br'))!;
      expect(Buffer.from(br).equals(brotli(bytes, 5))).toBe(true);
      expect(zlib.brotliDecompressSync(br).equals(Buffer.from(bytes))).toBe(true);
      expect(Buffer.from((await encodeAtRequestTime(bytes, 'gzip'))!).equals(zlib.gzipSync(bytes, { level: 6 }))).toBe(
        true,
      );
    }
  });
});
