// `publish --dry-run` with 1 article changed among N (default 10,000), through the real CLI:
// build (incremental), compare with the recorded publish state, print. Median of 5.
//   npm run bench -- --only publish
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchProject } from './build.ts';
import { editArticle } from './corpus.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const QUIRE = path.join(ROOT, 'bin', 'quire.js');

export function benchPublishDryRun(count = 10_000, runs = 5): { medianMs: number; runsMs: number[]; count: number } {
  const { dir, contentDir, env } = benchProject(count, 'standard', 'publish');
  const quire = (...args: string[]) =>
    execFileSync(process.execPath, [QUIRE, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    quire('webhook', 'set', 'bench', '--url', 'https://127.0.0.1:9/hook', '--secret', 'bench-secret-0123456789abcdef');
    quire('publish', '--baseline'); // records all N as sent (cold build included, not timed)
    const runsMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const undo = editArticle(contentDir, i * 7, `run ${i}`); // a dry run records nothing: undo after
      const started = performance.now();
      const out = quire('publish', '--dry-run');
      runsMs.push(performance.now() - started);
      undo();
      if (!/1 event would send/.test(out)) throw new Error(`expected one event:\n${out}`);
    }
    const sorted = [...runsMs].sort((a, b) => a - b);
    return { medianMs: sorted[Math.floor(sorted.length / 2)]!, runsMs, count };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 10_000);
  const r = benchPublishDryRun(count);
  console.log(
    `| publish --dry-run, 1 of ${r.count} changed (CLI, median of 5) | ${r.medianMs.toFixed(0)} ms | runs: ${r.runsMs.map((m) => m.toFixed(0)).join(', ')} |`,
  );
}
