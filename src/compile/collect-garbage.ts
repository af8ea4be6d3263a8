// A full collection of the main thread's heap, for the gaps between render chunks of a large build.
// Each article leaves short-lived strings on the main thread (its Markdown, the rendered HTML from
// a worker, two JSON bodies); a chunk's worth lives long enough to reach the old generation, and V8
// lets that garbage grow far past the live heap before it collects: a collection between chunks
// keeps peak RSS much lower in the same time (docs/benchmarks-log.md, "Where a cold build's time
// went (2026-11-23, evening)"). Node exposes `gc` only behind a flag; setting it at run time and
// reading `gc` from a fresh context is the usual way to get it without restarting the process.
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null = null;

export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}
