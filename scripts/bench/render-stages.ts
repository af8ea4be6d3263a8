// CPU time of each stage of rendering one article, summed over a corpus: the steps of
// renderMarkdown (src/render/render-markdown.ts) called one by one, in one thread, after a
// warm-up pass. It checks that the stages together give renderMarkdown's HTML.
//   npx tsx scripts/bench/render-stages.ts [--corpus dense] [--articles 600] [--rounds 3]
// Run it with `node --max-semi-space-size=32` (through NODE_OPTIONS) to size the young
// generation as the render workers do.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Root as HastRoot } from 'hast';
import { raw } from 'hast-util-raw';
import { sanitize } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import type { Root as MdastRoot } from 'mdast';
import { toHast } from 'mdast-util-to-hast';
import { VFile } from 'vfile';
import { splitBody } from '../../src/content/parse-article.ts';
import { CONTENT_LIMITS } from '../../src/content/limits.ts';
import { parseGfm } from '../../src/render/gfm-parser.ts';
import { deepestBlockLine, deepestHtml, deepestNode } from '../../src/render/nesting.ts';
import { rehypePrepareTree } from '../../src/render/prepare-tree.ts';
import type { RenderContext } from '../../src/render/render-context.ts';
import { deriveExcerpt, renderMarkdown } from '../../src/render/render-markdown.ts';
import { sanitizeSchema } from '../../src/render/sanitize-schema.ts';
import { parseCorpusVariant, writeCorpus } from './corpus.ts';

const STAGES = [
  'line scan',
  'parse',
  'tree checks',
  'mdast→hast',
  'raw HTML',
  'prepare',
  'sanitize',
  'stringify',
  'excerpt',
] as const;
type Stage = (typeof STAGES)[number];

const resolveImage = (p: string) => `/images/${p}`;
const prepare = rehypePrepareTree();

function hasHtml(node: { type: string; children?: unknown[] }): boolean {
  if (node.type === 'html') return true;
  return node.children ? (node.children as (typeof node)[]).some(hasHtml) : false;
}

/** renderMarkdown's steps for English, each timed into `cpu`; returns the HTML. */
function renderByStage(markdown: string, cpu: Map<Stage, number>): string {
  let t = process.threadCpuUsage();
  const lap = (stage: Stage) => {
    const used = process.threadCpuUsage(t);
    cpu.set(stage, cpu.get(stage)! + used.user + used.system);
    t = process.threadCpuUsage();
  };
  const limit = CONTENT_LIMITS.nestingDepth;
  if (deepestBlockLine(markdown, limit)) throw new Error('too deep');
  lap('line scan');
  const ctx: RenderContext = { articleDir: 'articles', bodyLine: 1, resolveImage, problems: [], images: [], links: [] };
  const file = new VFile({ value: markdown, data: { quire: ctx } });
  const mdast = parseGfm(markdown, file) as MdastRoot;
  lap('parse');
  const withRaw = !deepestNode(mdast, limit) && hasHtml(mdast);
  if (withRaw) deepestHtml(mdast, limit);
  lap('tree checks');
  let hast = toHast(mdast, {
    file,
    allowDangerousHtml: withRaw,
    clobberPrefix: '',
    footnoteLabel: 'Footnotes',
    footnoteBackLabel: 'Back to reference',
  }) as HastRoot;
  lap('mdast→hast');
  if (withRaw) hast = raw(hast, { file }) as HastRoot;
  lap('raw HTML');
  prepare(hast, file);
  lap('prepare');
  hast = sanitize(hast, sanitizeSchema) as HastRoot;
  lap('sanitize');
  const html = toHtml(hast);
  lap('stringify');
  deriveExcerpt(hast);
  lap('excerpt');
  return html;
}

const { values } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'dense' },
    articles: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '3' },
  },
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-render-stages-'));
try {
  writeCorpus(path.join(dir, 'content'), Number(values.articles), parseCorpusVariant(values.corpus));
  const articles = path.join(dir, 'content', 'bench', 'articles');
  const bodies = fs
    .readdirSync(articles)
    .sort()
    .map((f) => splitBody(f, fs.readFileSync(path.join(articles, f))));
  const per = (us: number, n: number) => `${(us / 1000 / n).toFixed(3)} ms`;
  // The first pass is what a render worker sees (each article once, code not yet optimized).
  const cold = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  const t0 = process.threadCpuUsage();
  for (const markdown of bodies) renderByStage(markdown, cold);
  const coldUsed = process.threadCpuUsage(t0);
  for (const markdown of bodies) {
    const whole = renderMarkdown({ markdown, lang: 'en', articleDir: 'articles', bodyLine: 1, resolveImage }).html;
    if (renderByStage(markdown, new Map(STAGES.map((s) => [s, 0]))) !== whole)
      throw new Error('the stages do not give renderMarkdown’s HTML');
  }
  const cpu = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  const rounds = Number(values.rounds);
  let total = 0;
  for (let round = 0; round < rounds; round++) {
    const t = process.threadCpuUsage();
    for (const markdown of bodies) renderByStage(markdown, cpu);
    const used = process.threadCpuUsage(t);
    total += used.user + used.system;
  }
  const n = rounds * bodies.length;
  console.log(
    `${values.corpus} corpus, ${bodies.length} articles, CPU per article (this thread): first pass | next ${rounds} passes`,
  );
  for (const s of STAGES) console.log(`  ${s.padEnd(12)} ${per(cold.get(s)!, bodies.length)} | ${per(cpu.get(s)!, n)}`);
  console.log(`  ${'total'.padEnd(12)} ${per(coldUsed.user + coldUsed.system, bodies.length)} | ${per(total, n)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
