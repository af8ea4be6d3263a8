// Markdown parsing: stock remark-parse + remark-gfm next to Quire's parser (src/render/gfm-parser.ts,
// which gives the same trees), on the bench corpus, alternating rounds, best of each.
//   npm run bench -- --only parse
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { VFile } from 'vfile';
import { splitBody } from '../../src/content/parse-article.ts';
import { parseGfm } from '../../src/render/gfm-parser.ts';
import { writeCorpus } from './corpus.ts';

export function benchParse(count = 800, rounds = 6): { stockMs: number; quireMs: number; count: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-parse-'));
  try {
    writeCorpus(dir, count);
    const articles = path.join(dir, 'bench', 'articles');
    const docs = fs.readdirSync(articles).map((f) => splitBody(f, fs.readFileSync(path.join(articles, f))));
    const stock = unified().use(remarkParse).use(remarkGfm).freeze();
    const perArticle = (parse: (md: string) => unknown) => {
      const started = performance.now();
      for (const md of docs) parse(md);
      return (performance.now() - started) / docs.length;
    };
    let stockMs = Infinity;
    let quireMs = Infinity;
    for (let round = 0; round < rounds; round++) {
      stockMs = Math.min(
        stockMs,
        perArticle((md) => stock.parse(new VFile(md))),
      );
      quireMs = Math.min(
        quireMs,
        perArticle((md) => parseGfm(md, new VFile(md))),
      );
    }
    return { stockMs, quireMs, count };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchParse();
  console.log(
    `| parse, ${r.count} articles (best of 6 alternating rounds) | remark-gfm ${r.stockMs.toFixed(2)} ms | Quire ${r.quireMs.toFixed(2)} ms |`,
  );
}
