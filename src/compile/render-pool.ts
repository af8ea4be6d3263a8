// Renders on worker threads when there is enough to render: Markdown parsing is CPU-bound.
// Workers take small batches from a queue, so uneven documents still spread evenly, and each has
// a few batches posted ahead: a worker that finishes one starts the next at once, even while
// this thread is busy writing output and cannot answer (with one batch at a time, the workers
// waited for it: docs/benchmarks-log.md, "2026-11-25: what changed, and why").
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ImageFile } from '../content/load-content.ts';
import type { RenderInput, RenderOutput } from '../render/render-markdown.ts';
import { createImageResolver } from './images.ts';
import { sampleCpu, spareCores } from './spare-cores.ts';

export type WorkerRenderInput = Omit<RenderInput, 'resolveImage'>;

/** What a worker needs to resolve a site's images itself; sent once per worker and site. */
export interface SiteMessage {
  type: 'site';
  key: string;
  siteId: string;
  publicUrl: string;
  images: [string, ImageFile][];
}

export interface RenderMessage {
  type: 'render';
  id: number;
  siteKey: string;
  inputs: WorkerRenderInput[];
}

export type WorkerReply = { id: number; outputs: RenderOutput[] } | { id: number; error: string };
/** A worker's first message: it has loaded the renderer and takes work. */
export interface WorkerReady {
  ready: true;
}

export interface RenderPool {
  /** Starts the workers ahead of the first render, so their start-up overlaps other work. */
  warm(): void;
  render(
    siteId: string,
    publicUrl: string,
    images: Map<string, ImageFile>,
    inputs: WorkerRenderInput[],
  ): Promise<RenderOutput[]>;
  /**
   * render(), with one promise per input, settled when its batch comes back: the caller can use
   * the first outputs while the workers render the rest (a build's last chunk is then written as
   * it is rendered, not after all of it).
   */
  renderEach(
    siteId: string,
    publicUrl: string,
    images: Map<string, ImageFile>,
    inputs: WorkerRenderInput[],
  ): Promise<RenderOutput>[];
  close(): Promise<void>;
  /** Batches rendered in the main thread because a worker ran out of memory on them (or could not start). */
  readonly fallbacks: number;
  /** Workers that died (out of memory, or failed); each is replaced when there is work for it. */
  readonly lost: number;
}

/**
 * Renders asked of, or pending in, a pool that was closed: the build that owned it has failed or
 * ended, and reports what stopped it. An internal signal, not a problem anyone is shown.
 */
export class RenderPoolClosedError extends Error {
  constructor() {
    super('the render pool was closed');
    this.name = 'RenderPoolClosedError';
  }
}

/** Below this many documents the workers' start-up costs more than it saves. */
export const POOL_THRESHOLD = 48;
const BATCH = 8;
/**
 * Batches posted to a worker and not yet answered: enough work to last while this thread writes
 * (docs/benchmarks-log.md, "figures first recorded in code comments").
 */
const IN_FLIGHT = 4;
// A document's render needs little live memory; without a cap V8 lets garbage pile up in each
// worker. A tight cap costs speed instead: every major collection drops the optimized code of the
// per-document closures micromark and mdast-util-from-markdown create, and V8 compiles it again
// (docs/benchmarks-log.md, "Where a cold build's time went (2026-11-23, evening)"). A document
// too big for the cap is rendered in the main thread.
const WORKER_OLD_SPACE_MB = 256;
// Rendering allocates many short-lived objects per document: with V8's default 16 MB semi-spaces
// the collector's helper threads took much of the build's CPU, and 32 MB ones (V8 sizes the young
// generation as three of them) cut it for a little more memory per worker (docs/benchmarks-log.md,
// "2026-11-25: what changed, and why").
export const WORKER_YOUNG_GENERATION_MB = 96;

export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * Workers in a row that die before they are ready (out of memory while loading) after which the
 * pool starts no more: it renders in this thread, as a pool of size 0. Replacing them one by one
 * would cost a worker's start for every batch of a build (docs/benchmarks-log.md, "figures first
 * recorded in code comments").
 */
const MAX_START_FAILURES = 2;

/** How long a pool of no fixed size watches the machine before it starts more than one worker. */
const PROBE_MS = 250;

interface Job {
  message: RenderMessage;
  site: SiteMessage;
  images: Map<string, ImageFile>;
  resolve: (o: RenderOutput[]) => void;
  reject: (e: Error) => void;
}

interface Slot {
  /** null once it died: the next work for this slot starts a fresh one. */
  worker: Worker | null;
  sites: Set<string>;
  /** Posted and not yet answered, in the order the worker takes them. */
  jobs: Job[];
}

/**
 * `size` workers; without a size, one at first and, after PROBE_MS, one more for each core other
 * processes leave free beyond it (spare-cores.ts), up to defaultWorkerCount().
 */
export function createRenderPool(fixedSize?: number, memoryCapMb = WORKER_OLD_SPACE_MB): RenderPool {
  const size = fixedSize ?? defaultWorkerCount();
  let slots: Slot[] | null = null;
  let probe: NodeJS.Timeout | undefined;
  const queue: Job[] = [];
  let nextId = 0;
  let nextSite = 0;
  let fallbacks = 0;
  let lost = 0;
  let closed = false;
  /** Workers that died before they were ready, since the last one that was. */
  let startFailures = 0;
  /** Set once workers cannot start: everything is rendered in this thread from then on. */
  let inlineOnly = false;

  const dispatch = (slot: Slot) => {
    // A worker that died while it had nothing to do (near its cap, a collection can still fail)
    // is replaced only now: a render must never be posted to a dead one, where it would wait for ever.
    if (!slot.worker) {
      if (!queue.length || closed || inlineOnly) return;
      startWorker(slot);
    }
    const worker = slot.worker!;
    while (slot.jobs.length < IN_FLIGHT && queue.length) {
      const job = queue.shift()!;
      slot.jobs.push(job);
      if (!slot.sites.has(job.site.key)) {
        worker.postMessage(job.site);
        slot.sites.add(job.site.key);
      }
      worker.postMessage(job.message);
    }
    // Busy workers keep the process alive; idle ones must not hold it open.
    if (slot.jobs.length) worker.ref();
    else worker.unref();
  };

  const startWorker = (slot: Slot) => {
    const worker = new Worker(new URL('./render-worker-entry.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: memoryCapMb, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    slot.worker = worker;
    slot.sites = new Set();
    slot.jobs = [];
    let ready = false;
    /** It died: what it had in flight, told once (null when its death was already seen). */
    const died = (): Job[] | null => {
      if (slot.worker !== worker) return null;
      lost++;
      slot.worker = null;
      return slot.jobs.splice(0);
    };
    worker.on('message', (reply: WorkerReply | WorkerReady) => {
      if ('ready' in reply) {
        ready = true;
        startFailures = 0;
        return;
      }
      const job = slot.jobs.shift();
      if ('error' in reply) job?.reject(new Error(`render worker failed: ${reply.error}`));
      else job?.resolve(reply.outputs);
      dispatch(slot);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const inFlight = died();
      if (!inFlight) return;
      const [job, ...posted] = inFlight;
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY' && slots) {
        if (!ready && ++startFailures >= MAX_START_FAILURES) {
          // Workers cannot even start under the cap: all that is left is rendered here.
          inlineOnly = true;
          for (const j of [...inFlight, ...queue.splice(0)]) renderHere(j);
          return;
        }
        // Over the cap: the batch it was rendering is rendered here, and a fresh worker takes the
        // next ones, starting with those posted to the one that died.
        if (job) renderHere(job);
        queue.unshift(...posted);
        dispatch(slot);
        return;
      }
      for (const j of [...inFlight, ...queue.splice(0)]) j.reject(err);
    });
    // An exit with no error first (the worker ended itself) fails what it had, not silently.
    worker.on('exit', (code) => {
      if (closed) return;
      for (const j of died() ?? []) j.reject(new Error(`render worker exited with code ${code}`));
    });
    worker.unref();
  };

  /** A batch a worker could not render, rendered in this thread. */
  const renderHere = (job: Job) => {
    fallbacks++;
    renderInline(job.site.siteId, job.site.publicUrl, job.images, job.message.inputs).then(job.resolve, job.reject);
  };

  const newSlot = (): Slot => {
    const slot = { sites: new Set(), jobs: [] } as unknown as Slot;
    startWorker(slot);
    return slot;
  };
  const start = (): Slot[] => {
    if (fixedSize !== undefined || size === 1) return Array.from({ length: size }, newSlot);
    const before = sampleCpu();
    probe = setTimeout(() => {
      probe = undefined;
      if (!slots || inlineOnly) return;
      const more = Math.min(size - 1, (spareCores(before, sampleCpu()) ?? size) - 1);
      for (let i = 0; i < more; i++) {
        const slot = newSlot();
        slots.push(slot);
        dispatch(slot);
      }
    }, PROBE_MS);
    probe.unref();
    return [newSlot()];
  };

  const renderEach: RenderPool['renderEach'] = (siteId, publicUrl, images, inputs) => {
    // A chunk still under way when its build failed may ask after close: no new workers for it.
    if (closed) return inputs.map(() => Promise.reject(new RenderPoolClosedError()));
    if (size === 0 || inlineOnly) {
      const all = renderInline(siteId, publicUrl, images, inputs);
      return inputs.map((_, i) => all.then((outputs) => outputs[i]!));
    }
    slots ??= start();
    const site: SiteMessage = { type: 'site', key: String(nextSite++), siteId, publicUrl, images: [...images] };
    const each: Promise<RenderOutput>[] = [];
    for (let i = 0; i < inputs.length; i += BATCH) {
      const message: RenderMessage = {
        type: 'render',
        id: nextId++,
        siteKey: site.key,
        inputs: inputs.slice(i, i + BATCH),
      };
      const batch = new Promise<RenderOutput[]>((resolve, reject) =>
        queue.push({ message, site, images, resolve, reject }),
      );
      message.inputs.forEach((_, j) => each.push(batch.then((outputs) => outputs[j]!)));
    }
    for (const slot of slots) dispatch(slot);
    return each;
  };

  return {
    warm() {
      if (size > 0 && !closed) slots ??= start();
    },
    render: (siteId, publicUrl, images, inputs) => Promise.all(renderEach(siteId, publicUrl, images, inputs)),
    renderEach,
    get fallbacks() {
      return fallbacks;
    },
    get lost() {
      return lost;
    },
    async close() {
      closed = true;
      clearTimeout(probe);
      const all = slots ?? [];
      slots = null;
      // Terminated workers answer nothing: what they still had is rejected, not left waiting.
      const error = new RenderPoolClosedError();
      for (const job of [...all.flatMap((s) => s.jobs.splice(0)), ...queue.splice(0)]) job.reject(error);
      await Promise.all(all.map((s) => s.worker?.terminate()));
    },
  };
}

/**
 * A pool of size 0 renders in this thread, with the same image resolution as a worker (as does a
 * batch too big for a worker). The pipeline is loaded on first use.
 */
async function renderInline(
  siteId: string,
  publicUrl: string,
  images: Map<string, ImageFile>,
  inputs: WorkerRenderInput[],
): Promise<RenderOutput[]> {
  const { renderMarkdown } = await import('../render/render-markdown.ts');
  const resolveImage = createImageResolver(siteId, images, publicUrl, new Map()).url;
  return inputs.map((input) => renderMarkdown({ ...input, resolveImage }));
}
