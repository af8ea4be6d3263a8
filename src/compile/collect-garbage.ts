// A full collection of the main thread's heap, for the gaps between render chunks of a large
// build. Each article leaves ~85 KB of short-lived strings on the main thread (its Markdown, the
// rendered HTML from a worker, two JSON bodies); a chunk's worth lives long enough to reach the
// old generation, and V8 lets that garbage grow to about four times the live heap before it
// collects. At 10,000 articles that was 130 MB of garbage and a peak RSS of 434-496 MiB; with a
// collection between chunks, 305 MiB in the same time (docs/benchmarks-log.md). Node exposes `gc`
// only behind a flag; setting it at run time and reading `gc` from a fresh context is the usual
// way to get it without restarting the process.
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
