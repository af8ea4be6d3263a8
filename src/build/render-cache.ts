// Render results on disk under the state dir, keyed by the source and the renderer's version,
// so a CI run that keeps .quire/ renders only what changed. An entry also records the image
// URLs the render resolved; it is used only while those still resolve the same way.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RenderInput, RenderOutput } from '../render/render-markdown.ts';
import { RENDERER_VERSION } from '../render/renderer-version.ts';

interface Entry {
  output: Omit<RenderOutput, 'images'>;
  images: { sitePath: string; url: string | null }[];
}

export interface RenderCache {
  key(input: RenderInput): string;
  get(key: string, input: RenderInput): RenderOutput | undefined;
  set(key: string, output: RenderOutput, input: RenderInput): void;
  stats: { hits: number; misses: number };
}

/** Entries also kept in memory, for a watcher's rebuilds; the disk holds them all. */
const MEMORY_ENTRIES = 512;

export function createRenderCache(dir: string | null): RenderCache {
  const memory = new Map<string, Entry>();
  const remember = (key: string, entry: Entry) => {
    memory.delete(key);
    memory.set(key, entry);
    if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value!);
  };
  const stats = { hits: 0, misses: 0 };
  const fileOf = (key: string) => path.join(dir!, key.slice(0, 2), `${key}.json`);

  function load(key: string): Entry | undefined {
    const hit = memory.get(key);
    if (hit || !dir) return hit;
    try {
      const entry = JSON.parse(fs.readFileSync(fileOf(key), 'utf8')) as Entry;
      remember(key, entry);
      return entry;
    } catch {
      return undefined; // missing or torn entry: render again
    }
  }

  return {
    stats,
    key(input) {
      return createHash('sha256')
        .update(`${RENDERER_VERSION}\0${input.lang}\0${input.articleDir}\0${input.bodyLine}\0`)
        .update(input.markdown)
        .digest('hex');
    },
    get(key, input) {
      const entry = load(key);
      const fresh = entry?.images.every((i) => (input.resolveImage(i.sitePath) ?? null) === i.url);
      if (!entry || !fresh) {
        stats.misses++;
        return undefined;
      }
      stats.hits++;
      return { ...entry.output, images: entry.images.map((i) => i.sitePath) };
    },
    set(key, output, input) {
      const { images, ...rest } = output;
      const entry: Entry = {
        output: rest,
        images: images.map((sitePath) => ({ sitePath, url: input.resolveImage(sitePath) ?? null })),
      };
      remember(key, entry);
      if (!dir) return;
      const file = fileOf(key);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(entry));
      fs.renameSync(tmp, file);
    },
  };
}
