// The same corpus through Eleventy 3 (Markdown → HTML pages), for comparison. Eleventy is
// installed on first use into .bench-cache/eleventy (git-ignored), not a project dependency.
// It does less per article than Quire (no sanitizer, no JSON API bodies or webhook payloads, no
// manifest) and more in one way (a page per article with a layout-free template).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childUsage } from './build.ts';
import { parseCorpusVariant, writeCorpus, type CorpusVariant } from './corpus.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(ROOT, '.bench-cache', 'eleventy');
const CLI = path.join(CACHE, 'node_modules', '@11ty', 'eleventy', 'cmd.cjs');
const CHILD = path.join(import.meta.dirname, 'build-child.mjs');

export function ensureEleventy(): string {
  if (!fs.existsSync(CLI)) {
    fs.mkdirSync(CACHE, { recursive: true });
    execFileSync('npm', ['install', '--prefix', CACHE, '--no-audit', '--no-fund', '--no-save', '@11ty/eleventy@3'], {
      stdio: 'ignore',
    });
  }
  const pkg = JSON.parse(
    fs.readFileSync(path.join(CACHE, 'node_modules', '@11ty', 'eleventy', 'package.json'), 'utf8'),
  ) as { version: string };
  return pkg.version;
}

/** Eleventy's CLI run through build-child.mjs, so its peak RSS and CPU are read the same way as Quire's. */
export function eleventyBuild(
  count: number,
  corpus: CorpusVariant = 'standard',
): { seconds: number; msPerArticle: number; peakRssMiB: number; cpuSeconds: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `eleventy-bench-${count}-`));
  try {
    writeCorpus(path.join(dir, 'content'), count, corpus);
    const input = path.join(dir, 'content', 'bench', 'articles');
    const started = performance.now();
    const r = spawnSync(
      process.execPath,
      [CHILD, CLI, `--input=${input}`, `--output=${path.join(dir, '_site')}`, '--quiet'],
      { cwd: dir, encoding: 'utf8' },
    );
    const ms = performance.now() - started;
    if (r.status !== 0) throw new Error(r.stderr);
    const { maxRssKiB, cpuSeconds } = childUsage(r.stderr);
    return { seconds: ms / 1000, msPerArticle: ms / count, peakRssMiB: maxRssKiB / 1024, cpuSeconds };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const version = ensureEleventy();
  const corpus = parseCorpusVariant(process.argv[3]);
  for (const n of (process.argv[2] ?? '1000,4000').split(',').map(Number)) {
    const r = eleventyBuild(n, corpus);
    console.log(`| Eleventy ${version} | ${n} | ${r.seconds.toFixed(1)} s | ${r.msPerArticle.toFixed(1)} ms/article |`);
  }
}
