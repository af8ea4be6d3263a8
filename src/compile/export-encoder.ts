// Compresses the build's bodies for dist/ while the build goes on: each body is handed over as it
// is written, compressed on libuv's thread pool (body-encodings.ts), and its variants are written
// by this thread when it next flushes (never from a callback, so nothing lands in a tree after
// the build gave it up). Two at a time.
//
// On a machine of one or two cores, an article's body is compressed here and now instead: the
// render workers already take every core, so the pool's threads only compete with them, and handing
// each body over and back (a stream, a callback, a promise per coding) cost more CPU than
// compressing in place, and its per-thread allocations more peak RSS (docs/benchmarks-log.md, "a
// cold build's output"). With more cores the pool keeps this thread, which feeds the workers, free.
// Large bodies (a list) always go to the pool, so that writing the list's index overlaps them.
import os from 'node:os';
import { codingsOf, encodeForExport, encodeForExportNow } from '../export/body-encodings.ts';
import type { EncodedVariants } from '../snapshot/snapshot-reader.ts';
import { encodedFile, type ContentCoding } from '../export/layout.ts';

export interface ExportEncoder {
  /** Starts compressing the body written at `rel`; `done` gets its codings once the variants are written. */
  add(rel: string, bytes: Uint8Array, done: (codings: ContentCoding[]) => void): void;
  /** Writes the variants made so far, in order, waiting until at most `keep` bodies are under way. */
  flush(keep?: number): Promise<void>;
}

interface Job {
  rel: string;
  bytes: Uint8Array | null;
  done: (codings: ContentCoding[]) => void;
  result: Promise<EncodedVariants> | null;
}

/** Bodies up to this size (an article's) are compressed in place when `inPlace` says so. */
const IN_PLACE_MAX_BYTES = 64 * 1024;

export function createExportEncoder(
  write: (rel: string, bytes: Uint8Array) => void,
  { inPlace = os.availableParallelism() <= 2, concurrency = 2 } = {},
): ExportEncoder {
  const queue: Job[] = [];
  let started = 0; // jobs of `queue` whose compression has started
  let running = 0;

  const startMore = () => {
    while (running < concurrency && started < queue.length) {
      const job = queue[started++]!;
      running++;
      job.result = encodeForExport(job.bytes!);
      job.bytes = null;
      job.result.then(
        () => (running--, startMore()),
        () => (running--, startMore()),
      );
    }
  };

  return {
    add(rel, bytes, done) {
      if (inPlace && bytes.byteLength <= IN_PLACE_MAX_BYTES) {
        const variants = encodeForExportNow(bytes);
        for (const coding of codingsOf(variants)) write(encodedFile(rel, coding), variants[coding]!);
        return done(codingsOf(variants));
      }
      queue.push({ rel, bytes, done, result: null });
      startMore();
    },
    async flush(keep = 0) {
      while (queue.length > keep) {
        const job = queue[0]!;
        const variants = await job.result!; // the oldest job has always started
        queue.shift();
        started--;
        for (const coding of codingsOf(variants)) write(encodedFile(job.rel, coding), variants[coding]!);
        job.done(codingsOf(variants));
      }
    },
  };
}
