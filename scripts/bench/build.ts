// Build speed and memory: cold builds of N articles, each `quire build` in a fresh child process
// timed from spawn to exit like Eleventy's (peak RSS is the child's maxRSS, worker threads
// included; CPU is user + system of the whole process), then rebuilds at the largest N with nothing
// changed and with one article changed (median of 5, through the real CLI).
//   npm run bench -- --only build [--sizes 1000,4000,10000] [--corpus standard|dense]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { editArticle, parseCorpusVariant, writeCorpus, type CorpusVariant } from './corpus.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const QUIRE = path.join(ROOT, 'bin', 'quire.js');
const CHILD = path.join(import.meta.dirname, 'build-child.mjs');

export interface ColdBuild {
  articles: number;
  seconds: number;
  msPerArticle: number;
  peakRssMiB: number;
  cpuSeconds: number;
}

/** What build-child.mjs reports on its last line of stderr. */
export function childUsage(stderr: string): { maxRssKiB: number; cpuSeconds: number } {
  return JSON.parse(stderr.trim().split('\n').at(-1)!) as { maxRssKiB: number; cpuSeconds: number };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A temp project of `count` corpus articles, and the environment that points `quire` at it. */
export function benchProject(count: number, corpus: CorpusVariant = 'standard', name = 'build') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quire-bench-${name}-${count}-`));
  const contentDir = path.join(dir, 'content');
  writeCorpus(contentDir, count, corpus);
  const env = {
    ...process.env,
    QUIRE_CONTENT_DIR: contentDir,
    QUIRE_DIST_DIR: path.join(dir, 'dist'),
    QUIRE_STATE_DIR: path.join(dir, '.quire'),
    QUIRE_SECRET: 'b'.repeat(40),
    // The bench's receivers are on loopback.
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  };
  return { dir, contentDir, env };
}

export function coldBuild(count: number, corpus: CorpusVariant = 'standard'): ColdBuild {
  const p = benchProject(count, corpus);
  try {
    const started = performance.now();
    const r = spawnSync(process.execPath, [CHILD], { env: p.env, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (r.status !== 0) throw new Error(r.stderr);
    const { maxRssKiB, cpuSeconds } = childUsage(r.stderr);
    return { articles: count, seconds: ms / 1000, msPerArticle: ms / count, peakRssMiB: maxRssKiB / 1024, cpuSeconds };
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

export function rebuilds(
  count: number,
  runs = 5,
  corpus: CorpusVariant = 'standard',
): { noChangeMs: number; oneChangeMs: number } {
  const p = benchProject(count, corpus);
  const build = () => {
    const t = performance.now();
    execFileSync(process.execPath, [QUIRE, 'build'], { env: p.env, stdio: 'ignore' });
    return performance.now() - t;
  };
  try {
    build(); // cold, not measured
    const noChange = Array.from({ length: runs }, build);
    const oneChange = Array.from({ length: runs }, (_, i) => {
      editArticle(p.contentDir, i * 11, `run ${i}`);
      return build();
    });
    return { noChangeMs: median(noChange), oneChangeMs: median(oneChange) };
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

/**
 * The same rebuilds as `npm run dev` makes them: in one process that keeps its caches between
 * builds (what the watcher does), so no start-up and no state load per build.
 */
export async function warmRebuilds(
  count: number,
  runs = 5,
  corpus: CorpusVariant = 'standard',
): Promise<{ noChangeMs: number; oneChangeMs: number }> {
  const { buildExport, createBuildCaches } = await import('../../src/compile/build.ts');
  const { parseConfig } = await import('../../src/config/config.ts');
  const { openApp } = await import('../../src/app/app.ts');
  const p = benchProject(count, corpus);
  try {
    execFileSync(process.execPath, [QUIRE, 'build'], { env: p.env, stdio: 'ignore' }); // cold, not measured
    const app = openApp(parseConfig(p.env), { log: () => {} });
    const caches = createBuildCaches(app.config.stateDir);
    const build = async () => {
      const t = performance.now();
      const result = await buildExport(app.buildSettings, caches);
      if (!result.ok) throw new Error('bench build failed');
      const ms = performance.now() - t;
      await result.cleanup();
      return ms;
    };
    await build(); // warms the caches, as the watcher's first build does
    const noChange: number[] = [];
    for (let i = 0; i < runs; i++) noChange.push(await build());
    const oneChange: number[] = [];
    for (let i = 0; i < runs; i++) {
      editArticle(p.contentDir, i * 13, `warm ${i}`);
      oneChange.push(await build());
    }
    return { noChangeMs: median(noChange), oneChangeMs: median(oneChange) };
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpus = parseCorpusVariant(process.argv[3]);
  for (const n of (process.argv[2] ?? '1000,4000,10000').split(',').map(Number)) {
    const c = coldBuild(n, corpus);
    console.log(
      `| cold build | ${n} | ${c.seconds.toFixed(1)} s | ${c.msPerArticle.toFixed(1)} ms/article | ${c.peakRssMiB.toFixed(0)} MiB |`,
    );
  }
}
