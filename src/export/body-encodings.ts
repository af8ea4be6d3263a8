// The compressed variants of a body (brotli and gzip), made the same way by the build (stored
// beside the body in dist/) and by the API for bodies made at request time. Compression runs on
// libuv's thread pool (zlib's async calls), so the thread that calls it goes on with its work.
// Why these settings: docs/benchmarks-log.md ("compressed answers"; brotli 6 for articles: "a cold
// build's output").
//
// zlib is taken from the running Node process, not imported: the edge Worker bundles the API app
// and has no zlib; there, bodies made at request time are answered in identity
// (encodeAtRequestTime gives null) and the edge network compresses them, while the build's stored
// variants are sent as they are.
import type * as Zlib from 'node:zlib';
import { CONTENT_CODINGS, type ContentCoding } from './layout.ts';

/** A body's compressed variants, by content coding; a coding it has no variant in is absent. */
export type EncodedVariants = Partial<Record<ContentCoding, Uint8Array>>;

/**
 * Bodies shorter than this are kept in identity only: a few hundred bytes saved do not pay for a
 * second and third file per body, nor for the CPU, and they fit one packet either way.
 */
export const MIN_ENCODED_BYTES = 1024;

/**
 * Brotli 6 for an article's body (under 64 KiB), nearly as small there as 8 for less CPU, since
 * every article of a cold build is compressed; brotli 8 for larger bodies (a site's list up to
 * ~2,000 articles, a filtered page), where it is clearly smaller than 6 and higher qualities cost
 * far more CPU for a little; gzip 6, zlib's default (docs/benchmarks-log.md, "compressed answers").
 */
const SMALL_BODY_BYTES = 64 * 1024;
const SMALL_SETTINGS = { brotli: 6, gzip: 6 };
const SETTINGS = { brotli: 8, gzip: 6 };
/**
 * Bodies this large (the list of a site of some 2,000 articles and more) are made again by every
 * build that changes any article, and take time in proportion: brotli 4 and gzip 4 take a
 * fraction of 8's and 6's time for a few more bytes, which keeps a one-change rebuild of such a
 * site under its second (docs/benchmarks-log.md, "compressed answers").
 */
const LARGE_BODY_BYTES = 2 ** 20;
const LARGE_SETTINGS = { brotli: 4, gzip: 4 };

/**
 * Bodies made at request time (a filtered page, a list remade at a go-live, a preview) are
 * compressed while a client waits, once per distinct body, and any key can ask for many distinct
 * ones: brotli 5 there, for somewhat more bytes than 8 at a fraction of its CPU and memory
 * (docs/benchmarks-log.md, "compressed answers"). gzip 6 needs little memory (zlib's 256 KiB)
 * and stays; bodies over 1 MiB as the build's.
 */
const REQUEST_TIME_SETTINGS = { brotli: 5, gzip: 6 };

type Settings = typeof SETTINGS;

const settingsFor = (size: number): Settings =>
  size < SMALL_BODY_BYTES ? SMALL_SETTINGS : size < LARGE_BODY_BYTES ? SETTINGS : LARGE_SETTINGS;
const requestTimeSettingsFor = (size: number): Settings =>
  size < LARGE_BODY_BYTES ? REQUEST_TIME_SETTINGS : LARGE_SETTINGS;

type WithProcess = { process?: { getBuiltinModule?: (id: string) => unknown } };
const zlib = (globalThis as WithProcess).process?.getBuiltinModule?.('node:zlib') as typeof Zlib | undefined;

const promised = (
  run: (bytes: Uint8Array, options: object, done: (err: Error | null, out: Uint8Array) => void) => void,
  bytes: Uint8Array,
  options: object,
): Promise<Uint8Array> =>
  new Promise((resolve, reject) => run(bytes, options, (err, out) => (err ? reject(err) : resolve(out))));

function optionsFor(
  zlib: typeof Zlib,
  bytes: Uint8Array,
  coding: ContentCoding,
  settings: Settings,
): Zlib.ZlibOptions | Zlib.BrotliOptions {
  if (coding === 'gzip') return { level: settings.gzip };
  return {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: settings.brotli,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      // A window no larger than the body compresses it the same, and the default 4 MiB one,
      // allocated per call, cost a build memory and CPU (docs/benchmarks-log.md, "compressed
      // answers").
      [zlib.constants.BROTLI_PARAM_LGWIN]: windowBitsFor(zlib, bytes.byteLength),
    },
  };
}

function compress(
  zlib: typeof Zlib,
  bytes: Uint8Array,
  coding: ContentCoding,
  settings: Settings,
): Promise<Uint8Array> {
  return promised(
    coding === 'gzip' ? zlib.gzip : zlib.brotliCompress,
    bytes,
    optionsFor(zlib, bytes, coding, settings),
  );
}

/** The smallest brotli window (log2 of its bytes) that holds `size` bytes, within brotli's 10–24. */
const windowBitsFor = (zlib: typeof Zlib, size: number): number =>
  Math.min(
    zlib.constants.BROTLI_MAX_WINDOW_BITS,
    Math.max(zlib.constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(size + 1))),
  );

/** `bytes` compressed with `coding`, or null when that is not smaller (or there is no zlib: the edge). */
async function encodeBody(bytes: Uint8Array, coding: ContentCoding, settings: Settings): Promise<Uint8Array | null> {
  if (!zlib) return null;
  const encoded = await compress(zlib, bytes, coding, settings);
  return encoded.byteLength < bytes.byteLength ? encoded : null;
}

/** A body made at request time compressed with `coding` (REQUEST_TIME_SETTINGS), or null as encodeBody. */
export const encodeAtRequestTime = (bytes: Uint8Array, coding: ContentCoding): Promise<Uint8Array | null> =>
  encodeBody(bytes, coding, requestTimeSettingsFor(bytes.byteLength));

/**
 * The variants the build stores for a body: every coding that makes it smaller, none for a body
 * under MIN_ENCODED_BYTES.
 */
export async function encodeForExport(bytes: Uint8Array): Promise<EncodedVariants> {
  if (bytes.byteLength < MIN_ENCODED_BYTES) return {};
  return variantsOf(
    bytes,
    await Promise.all(CONTENT_CODINGS.map((coding) => encodeBody(bytes, coding, settingsFor(bytes.byteLength)))),
  );
}

/**
 * encodeForExport() on this thread, without the thread pool: no handing over and back, at the cost
 * of this thread's time (see export-encoder.ts for when the build does that).
 */
export function encodeForExportNow(bytes: Uint8Array): EncodedVariants {
  if (!zlib || bytes.byteLength < MIN_ENCODED_BYTES) return {};
  const z = zlib;
  return variantsOf(
    bytes,
    CONTENT_CODINGS.map((coding) =>
      (coding === 'gzip' ? z.gzipSync : z.brotliCompressSync)(
        bytes,
        optionsFor(z, bytes, coding, settingsFor(bytes.byteLength)),
      ),
    ),
  );
}

/** The encoded bytes that are smaller than the body, by coding. */
function variantsOf(bytes: Uint8Array, encoded: (Uint8Array | null)[]): EncodedVariants {
  const variants: EncodedVariants = {};
  CONTENT_CODINGS.forEach((coding, i) => {
    const e = encoded[i];
    if (e && e.byteLength < bytes.byteLength) variants[coding] = e;
  });
  return variants;
}

/** The codings of `variants`, in CONTENT_CODINGS order (what a manifest records). */
export const codingsOf = (variants: EncodedVariants): ContentCoding[] =>
  CONTENT_CODINGS.filter((c) => variants[c] !== undefined);
