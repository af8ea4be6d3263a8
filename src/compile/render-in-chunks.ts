// A site's articles rendered in order, a chunk at a time: from the render cache or rendered (on
// the render workers when there are many), each handed on as soon as its output is back. Only
// speed and memory are decided here: what an article becomes is its caller's.
import path from 'node:path';
import { readMarkdown, type ImageFile } from '../content/load-content.ts';
import type { ArticleSource } from '../content/model.ts';
import { renderFailed } from '../render/render-context.ts';
import type { RenderInput, RenderOutput } from '../render/render-markdown.ts';
import { collectGarbage } from './collect-garbage.ts';
import type { RenderCache } from './render-cache.ts';
import { POOL_THRESHOLD, type RenderPool } from './render-pool.ts';

/** Bounds memory: bodies are rendered, written and dropped this many at a time. */
export const CHUNK = 256;
/**
 * Articles handed on between two looks at the event loop, so the render workers' replies are not
 * left waiting (docs/benchmarks-log.md, "2026-11-25: what changed, and why").
 */
const YIELD_EVERY = 64;

export interface ChunkRendering {
  siteId: string;
  siteLang: string;
  publicUrl: string;
  /** The site's image files (the render workers resolve images from them). */
  images: Map<string, ImageFile>;
  /** An image's public URL by its path in the site folder. */
  resolveImage: (sitePath: string) => string | undefined;
  renderCache: RenderCache;
  /** Worker threads for large batches; without it everything renders in this thread. */
  pool?: RenderPool;
}

/**
 * Renders the articles of `todo` and calls `each` with each one's Markdown and output, in order;
 * `chunkDone` after each chunk, before the next is handed on.
 */
export async function renderInChunks<T extends { source: ArticleSource }>(
  todo: readonly T[],
  r: ChunkRendering,
  each: (job: T, markdown: string, out: RenderOutput) => void,
  chunkDone: () => Promise<void>,
): Promise<void> {
  const renderChunk = (start: number) => {
    const chunk = todo.slice(start, start + CHUNK);
    const inputs: RenderInput[] = chunk.map(({ source }) => ({
      markdown: readMarkdown(source),
      lang: source.meta.lang ?? r.siteLang,
      articleDir: path.posix.dirname(source.sitePath),
      bodyLine: source.bodyLine,
      resolveImage: r.resolveImage,
    }));
    return { chunk, inputs, outputs: renderWithCache(inputs, r) };
  };
  // Two chunks are under way at a time: while this thread turns one into JSON and writes it (each
  // article as soon as its batch is rendered), the next is already read and queued, so the render
  // workers do not wait for this thread, nor this thread for a whole chunk: the build's last
  // chunk is written while it renders, not after.
  const startChunk = (start: number) => (start < todo.length ? renderChunk(start) : null);
  // Loading left its garbage (every file's text and front matter) in this heap; collected now, it
  // does not add to the peak while the first chunks and the workers' heaps grow.
  if (todo.length > CHUNK) collectGarbage();
  const ahead = [startChunk(0), startChunk(CHUNK)];
  for (let start = 0; start < todo.length; start += CHUNK) {
    const { chunk, inputs, outputs } = ahead.shift()!;
    if (start > 0) collectGarbage(); // the previous chunk's garbage: see collect-garbage.ts
    for (let i = 0; i < chunk.length; i++) {
      // Now and then the render workers' answers are taken, so they get their next batches.
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise(setImmediate);
      const out = await outputs[i]!;
      each(chunk[i]!, inputs[i]!.markdown, out);
    }
    // Handed on: the chunk after next is read and queued, and the render cache written (a transaction per chunk).
    ahead.push(startChunk(start + 2 * CHUNK));
    r.renderCache.flush();
    await chunkDone();
  }
}

/**
 * Each input's output, from the render cache or rendered (the cache is given the new ones as they
 * come; flushed by the caller), one promise per input.
 */
function renderWithCache(inputs: RenderInput[], r: ChunkRendering): Promise<RenderOutput>[] {
  const cache = r.renderCache;
  const keys = inputs.map((input) => cache.key(input));
  const outputs: (RenderOutput | Promise<RenderOutput> | undefined)[] = inputs.map((input, i) =>
    cache.get(keys[i]!, input),
  );
  const missing = outputs.flatMap((o, i) => (o ? [] : [i]));
  if (missing.length) {
    const todo = missing.map((i) => inputs[i]!);
    // Many on the workers; a few here, with the pipeline loaded on first use (a build with nothing to
    // render never loads it).
    const rendered =
      r.pool && todo.length >= POOL_THRESHOLD
        ? r.pool.renderEach(
            r.siteId,
            r.publicUrl,
            r.images,
            todo.map(({ resolveImage: _, ...rest }) => rest),
          )
        : renderHere(todo);
    missing.forEach((inputIndex, j) => {
      outputs[inputIndex] = rendered[j]!.then((output) => {
        if (!renderFailed(output.problems)) cache.set(keys[inputIndex]!, output, inputs[inputIndex]!);
        return output;
      });
    });
  }
  return outputs.map((o) => {
    const output = Promise.resolve(o!);
    output.catch(() => {}); // awaited in order; one left behind by a failed build must not be unhandled
    return output;
  });
}

function renderHere(inputs: RenderInput[]): Promise<RenderOutput>[] {
  const all = import('../render/render-markdown.ts').then(({ renderMarkdown }) => inputs.map(renderMarkdown));
  return inputs.map((_, i) => all.then((outputs) => outputs[i]!));
}
