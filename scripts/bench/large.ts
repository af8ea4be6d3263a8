// One large site through the real CLI, on one project so that its cold build is made once: the
// cold build (wall, CPU and peak RSS of the process, render workers included), then rebuilds with
// nothing changed and with one article changed, then `publish --dry-run` with one article changed
// since the recorded publish. Medians of 3 (each a new process, as CI and editors run them).
//   npm run bench -- --only large [--large 100000]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchProject, childUsage } from './build.ts';
import { type CorpusVariant, editArticle } from './corpus.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const QUIRE = path.join(ROOT, 'bin', 'quire.js');
const CHILD = path.join(import.meta.dirname, 'build-child.mjs');
const RUNS = 3;

export interface LargeSite {
  articles: number;
  cold: { seconds: number; cpuSeconds: number; peakRssMiB: number };
  noChangeMs: number[];
  oneChangeMs: number[];
  dryRunMs: number[];
  /** Peak RSS of the largest rebuild and dry run (a new process each). */
  rebuildPeakRssMiB: number;
}

export function benchLargeSite(count: number, corpus: CorpusVariant = 'standard'): LargeSite {
  const { dir, contentDir, env } = benchProject(count, corpus, 'large');
  let rebuildPeakRssMiB = 0;
  /** A command through build-child.mjs (which reports the process's usage), timed from spawn to exit. */
  const timed = (args: string[]) => {
    const started = performance.now();
    const r = spawnSync(process.execPath, [CHILD, '--quire', ...args], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
    const ms = performance.now() - started;
    if (r.status !== 0) throw new Error(`quire ${args.join(' ')} failed:\n${r.stderr}`);
    const usage = childUsage(r.stderr);
    return { ms, stdout: r.stdout, ...usage };
  };
  const quire = (...args: string[]) =>
    execFileSync(process.execPath, [QUIRE, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const c = timed(['build']);
    const cold = { seconds: c.ms / 1000, cpuSeconds: c.cpuSeconds, peakRssMiB: c.maxRssKiB / 1024 };
    const rebuild = () => {
      const r = timed(['build']);
      rebuildPeakRssMiB = Math.max(rebuildPeakRssMiB, r.maxRssKiB / 1024);
      return r.ms;
    };
    const noChangeMs = Array.from({ length: RUNS }, rebuild);
    const oneChangeMs = Array.from({ length: RUNS }, (_, i) => {
      editArticle(contentDir, i * 11, `large ${i}`);
      return rebuild();
    });
    quire('webhook', 'set', 'bench', '--url', 'https://127.0.0.1:9/hook', '--secret', 'bench-secret-0123456789abcdef');
    quire('publish', '--baseline'); // records every article as sent; not timed
    const dryRunMs = Array.from({ length: RUNS }, (_, i) => {
      const undo = editArticle(contentDir, i * 7 + 1, `dry run ${i}`); // a dry run records nothing
      const r = timed(['publish', '--dry-run']);
      undo();
      if (!/1 event would send/.test(r.stdout)) throw new Error(`expected one event:\n${r.stdout}`);
      rebuildPeakRssMiB = Math.max(rebuildPeakRssMiB, r.maxRssKiB / 1024);
      return r.ms;
    });
    return { articles: count, cold, noChangeMs, oneChangeMs, dryRunMs, rebuildPeakRssMiB };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
