// Render CPU of two checkouts of Quire, measured in one process so that a loaded machine weighs
// on both alike: each checkout's renderer (src/render/render-markdown.ts, with the dependencies
// and patches installed in that checkout) is bundled with esbuild and loaded side by side, then
// batches of 30 articles are rendered by one and the other in turn, the order swapped every
// batch, and each side's main-thread CPU time is summed. Both must give the same HTML.
//   npx tsx scripts/bench/render-ab.ts <before-checkout> <after-checkout> [--corpus dense] [--articles 300] [--rounds 3]
// Run it with `node --max-semi-space-size=32` (through NODE_OPTIONS) to size the young
// generation as the render workers do.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../bin/cli-bundle.js';
import { splitBody } from '../../src/content/parse-article.ts';
import { parseCorpusVariant, writeCorpus } from './corpus.ts';

type RenderAll = (bodies: string[]) => string;
const BATCH = 30;

async function loadRenderer(checkout: string, outDir: string, name: string): Promise<RenderAll> {
  const entry = path.join(checkout, `.render-ab-${process.pid}.ts`);
  fs.writeFileSync(
    entry,
    [
      "import { renderMarkdown } from './src/render/render-markdown.ts';",
      'export const renderAll = (bodies: string[]) => bodies.map((markdown) =>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a module written to disk
      "  renderMarkdown({ markdown, lang: 'en', articleDir: 'articles', bodyLine: 1, resolveImage: (p) => `/images/${p}` }).html).join('');",
    ].join('\n'),
  );
  try {
    const outfile = path.join(outDir, `${name}.mjs`);
    await build({ ...BUNDLE_OPTIONS, absWorkingDir: checkout, entryPoints: [entry], outfile, external: [] });
    return ((await import(pathToFileURL(outfile).href)) as { renderAll: RenderAll }).renderAll;
  } finally {
    fs.rmSync(entry);
  }
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    corpus: { type: 'string', default: 'dense' },
    articles: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
  },
});
if (positionals.length !== 2)
  throw new Error(
    'usage: render-ab.ts <before-checkout> <after-checkout> [--corpus dense] [--articles 300] [--rounds 3]',
  );
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-render-ab-'));
try {
  writeCorpus(path.join(dir, 'content'), Number(values.articles), parseCorpusVariant(values.corpus));
  const articles = path.join(dir, 'content', 'bench', 'articles');
  const bodies = fs
    .readdirSync(articles)
    .sort()
    .map((f) => splitBody(f, fs.readFileSync(path.join(articles, f))));
  const sides = [
    { name: 'before', render: await loadRenderer(path.resolve(positionals[0]!), dir, 'before'), cpu: 0, all: 0 },
    { name: 'after', render: await loadRenderer(path.resolve(positionals[1]!), dir, 'after'), cpu: 0, all: 0 },
  ];
  const [before, after] = sides.map((s) => s.render(bodies)); // also warms both up
  if (before !== after) throw new Error('the two checkouts render different HTML');
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round++) {
    for (let start = 0, turn = round; start < bodies.length; start += BATCH, turn++) {
      const batch = bodies.slice(start, start + BATCH);
      for (const side of turn % 2 ? [...sides].reverse() : sides) {
        const t = process.threadCpuUsage();
        const p = process.cpuUsage();
        side.render(batch);
        const used = process.threadCpuUsage(t);
        const all = process.cpuUsage(p);
        side.cpu += used.user + used.system;
        side.all += all.user + all.system;
      }
    }
  }
  const per = (cpu: number) => (cpu / 1000 / (rounds * bodies.length)).toFixed(2);
  console.log(
    `${values.corpus} corpus, ${bodies.length} articles × ${rounds} rounds, main-thread CPU per article: before ${per(sides[0]!.cpu)} ms, after ${per(sides[1]!.cpu)} ms (${(sides[1]!.cpu / sides[0]!.cpu).toFixed(3)} of before)`,
  );
  // The process's CPU adds V8's helper threads: parallel garbage collection and optimizing compiles.
  console.log(
    `  with V8's helper threads: before ${per(sides[0]!.all)} ms, after ${per(sides[1]!.all)} ms (${(sides[1]!.all / sides[0]!.all).toFixed(3)} of before)`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
