// Compresses the build's bodies for dist/ while the build goes on: each body is handed over as it
// is written, compressed on libuv's thread pool (body-encodings.ts), and its variants are written
// by this thread when it next flushes (never from a callback, so nothing lands in a tree after
// the build gave it up). Few at a time: the same pool reads the Markdown the render workers
// wait for.
import { codingsOf, encodeForDist } from '../dist/body-encodings.ts';
import type { EncodedVariants } from '../dist/dist-reader.ts';
import { encodedFile, type ContentCoding } from '../dist/layout.ts';

export interface DistEncoder {
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

export function createDistEncoder(write: (rel: string, bytes: Uint8Array) => void, concurrency = 2): DistEncoder {
  const queue: Job[] = [];
  let started = 0; // jobs of `queue` whose compression has started
  let running = 0;

  const startMore = () => {
    while (running < concurrency && started < queue.length) {
      const job = queue[started++]!;
      running++;
      job.result = encodeForDist(job.bytes!);
      job.bytes = null;
      job.result.then(
        () => (running--, startMore()),
        () => (running--, startMore()),
      );
    }
  };

  return {
    add(rel, bytes, done) {
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
