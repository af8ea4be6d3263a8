// Holds the main thread's young generation at Node 20's size during a build. On Node 24, V8 lets a
// young generation grow to 128 MB (two 64 MB semi-spaces) where Node 20 stopped at 32 MB, and a
// build's main thread, which keeps a chunk of articles alive while it allocates their JSON, grows
// it to the full 128 MB: more peak RSS for no CPU gained (docs/benchmarks-log.md, "peak RSS of a
// cold build on Node 24"). Its maximum is fixed when the heap is made, so it is capped here by
// turning off growth once it reaches MAIN_YOUNG_GENERATION_MB: V8 reads the growth factor each time
// it grows a young generation. That flag is the whole process's, so threads started from here on
// (the render workers) begin at the size they would grow to, within their own resourceLimits, and
// need no growth.
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { WORKER_YOUNG_GENERATION_MB } from './render-pool.ts';

const MAIN_YOUNG_GENERATION_MB = 32;
/** A thread's starting semi-space, the render workers' (V8 makes a young generation of three). */
const THREAD_SEMI_SPACE_MB = WORKER_YOUNG_GENERATION_MB / 3;

let held = false;
let watching: PerformanceObserver | null = null;

/** Caps the main thread's young generation from now on, as soon as it is MAIN_YOUNG_GENERATION_MB. */
export function holdYoungGeneration(): void {
  if (held || watching) return;
  v8.setFlagsFromString(`--min-semi-space-size=${THREAD_SEMI_SPACE_MB}`);
  if (freezeIfGrown()) return;
  // Checked after the collections until it has grown that far (it grows only at a collection); a
  // long stretch of synchronous work in between could take it one doubling further.
  watching = new PerformanceObserver(() => {
    if (freezeIfGrown()) {
      watching?.disconnect();
      watching = null;
    }
  });
  watching.observe({ entryTypes: ['gc'] });
}

function freezeIfGrown(): boolean {
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (!young || young.space_size < MAIN_YOUNG_GENERATION_MB * 1024 * 1024) return false;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  held = true;
  return true;
}
