// Render results on disk under the state dir, keyed by the source and the renderer's version,
// so a CI run that keeps .quire/ renders only what changed. An entry also records the image
// URLs the render resolved; it is used only while those still resolve the same way.
//
// The entries live in one SQLite file (<state dir>/cache/render.db, whose statements are in
// src/store/render-cache-file.ts), written a batch per transaction. A file per entry cost a file
// creation per article, which on the main thread of a cold build was most of its write time
// (docs/benchmarks-log.md, "2026-11-25: what changed, and why"); SQLite also gives atomic entries
// (no torn files) and lets concurrent builds share the file. It is only a cache: a damaged file is
// deleted (the next build starts a new one), any other failure turns the disk off for the build,
// and the build renders.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { makePrivateDir } from '../config/state-dir.ts';
import { cacheDirOf, legacyRenderEntriesOf, renderCacheFileOf } from '../config/state-layout.ts';
import type { RenderInput, RenderOutput } from '../render/render-markdown.ts';
import { RENDERER_VERSION } from '../render/renderer-version.ts';
import {
  isDamagedCacheFile,
  openRenderCacheFile,
  removeRenderCacheFile,
  type RenderCacheFile,
} from '../store/render-cache-file.ts';

interface Entry {
  output: Omit<RenderOutput, 'images'>;
  images: { sitePath: string; url: string | null }[];
}

export interface RenderCache {
  key(input: RenderInput): string;
  get(key: string, input: RenderInput): RenderOutput | undefined;
  /** Kept in memory at once; on disk at the next `flush`. */
  set(key: string, output: RenderOutput, input: RenderInput): void;
  flush(): void;
  /**
   * Nothing is cached yet (no entry in memory, no file on disk): every changed article will be
   * rendered. A build starts its render workers early only then; otherwise its articles may all
   * be in the cache (a CI run with a restored cache and fresh file times), and the workers start
   * when a chunk has enough to render.
   */
  isCold(): boolean;
  stats: { hits: number; misses: number };
}

/** Entries also kept in memory, for a watcher's rebuilds; the disk holds them all. */
const MEMORY_ENTRIES = 512;

/** `stateDir`: the state dir whose cache folder holds the file; null keeps entries in memory only. */
export function createRenderCache(stateDir: string | null): RenderCache {
  const memory = new Map<string, Entry>();
  const remember = (key: string, entry: Entry) => {
    memory.delete(key);
    memory.set(key, entry);
    if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value!);
  };
  const stats = { hits: 0, misses: 0 };
  let pending: [string, string][] = [];
  // Opened on first use: a build with nothing to render never loads SQLite.
  let disk: RenderCacheFile | null | undefined = stateDir ? undefined : null;
  const onDisk = <T>(use: (d: RenderCacheFile) => T): T | undefined => {
    if (disk === undefined) disk = openDisk(stateDir!);
    if (!disk) return undefined;
    try {
      return use(disk);
    } catch (err) {
      // Rendering again is always correct; a broken cache must not fail a build.
      const file = renderCacheFileOf(stateDir!);
      warn(file, err);
      disk.close();
      // A damaged file is deleted and the next use starts a new one (a watcher keeps its cache);
      // anything else turns the disk off for this cache's life.
      if (isDamagedCacheFile(err)) {
        removeRenderCacheFile(file);
        disk = undefined;
      } else disk = null;
      return undefined;
    }
  };

  function load(key: string): Entry | undefined {
    const hit = memory.get(key);
    if (hit) return hit;
    const text = onDisk((d) => d.read(key));
    if (text === undefined) return undefined;
    const entry = parseEntry(text);
    if (entry) remember(key, entry);
    // Otherwise not what this version writes: rendered again, and the new entry replaces it.
    return entry;
  }

  const flush = () => {
    if (!pending.length) return;
    const rows = pending;
    pending = [];
    onDisk((d) => d.write(rows));
  };

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
      if (disk === null) return;
      pending.push([key, JSON.stringify(entry)]);
    },
    flush,
    isCold: () =>
      memory.size === 0 && (disk === null || (disk === undefined && !fs.existsSync(renderCacheFileOf(stateDir!)))),
  };
}

function parseEntry(text: string): Entry | undefined {
  try {
    const e = JSON.parse(text) as Partial<Entry> | null;
    const o = e?.output;
    const wellFormed =
      Array.isArray(e?.images) &&
      e.images.every((i) => typeof i?.sitePath === 'string' && (i.url === null || typeof i.url === 'string')) &&
      typeof o?.html === 'string' &&
      typeof o.excerpt === 'string' &&
      Array.isArray(o.problems) &&
      Array.isArray(o.links);
    return wellFormed ? (e as Entry) : undefined;
  } catch {
    return undefined;
  }
}

function openDisk(stateDir: string): RenderCacheFile | null {
  const file = renderCacheFileOf(stateDir);
  try {
    // Its entries are every article's body, drafts included: the folder is its user's only.
    makePrivateDir(cacheDirOf(stateDir));
    removeLegacyEntries(stateDir);
    try {
      return openRenderCacheFile(file);
    } catch (err) {
      if (!isDamagedCacheFile(err)) throw err;
      removeRenderCacheFile(file); // not a database, or a damaged one: start a new one in its place
      return openRenderCacheFile(file);
    }
  } catch (err) {
    warn(file, err);
    return null;
  }
}

/** Earlier versions kept a file per entry in cache/render/; best effort, never a reason to fail. */
function removeLegacyEntries(stateDir: string): void {
  try {
    fs.rmSync(legacyRenderEntriesOf(stateDir), { recursive: true, force: true });
  } catch {
    // kept: it only takes space
  }
}

function warn(file: string, err: unknown): void {
  process.stderr.write(
    `quire: render cache ${file} not used (${err instanceof Error ? err.message : String(err)}); articles are rendered\n`,
  );
}
