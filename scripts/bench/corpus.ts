// A deterministic benchmark corpus: one site, N articles of about 1,500 words of realistic
// Markdown (headings, emphasis, links, inline code, bullet and numbered lists, a table, a fenced
// block, an image, a quote, a footnote; one in nine with inline HTML), explicit dates (no git
// needed), a few authors. Same seed, same bytes. The dense variant (corpus-dense.ts) has the same
// shape with more links, images, code blocks and nesting per article.
import fs from 'node:fs';
import path from 'node:path';
import { DENSE_IMAGES, denseArticleBody } from './corpus-dense.ts';

export type CorpusVariant = 'standard' | 'dense';
export const CORPUS_VARIANTS: readonly CorpusVariant[] = ['standard', 'dense'];

/** The random text helpers both variants write their articles with. */
export interface CorpusText {
  r: () => number;
  pick: <T>(xs: T[]) => T;
  words: (n: number) => string;
  sentence: () => string;
  paragraph: () => string;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'river ridge trail map contour valley saddle summit water wind forecast granite birch moss lichen shelter bridge ford gully scree cairn compass bearing north south east west morning evening weather cloud rain snow ice path stone wall gate field meadow forest heath bog lake tide shore harbour boat rope knot lantern'.split(
    ' ',
  );

const IMAGES = ['ridge.png', 'valley.png', 'harbour.png'];

export function parseCorpusVariant(name: string | undefined): CorpusVariant {
  const variant = (name ?? 'standard') as CorpusVariant;
  if (!CORPUS_VARIANTS.includes(variant))
    throw new Error(`unknown corpus "${name}" (expected ${CORPUS_VARIANTS.join(' or ')})`);
  return variant;
}

/** A valid 1×1 PNG, different per name so each has its own content hash. */
function pngBytes(name: string): Buffer {
  const base = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  );
  return Buffer.concat([base, Buffer.from(`\0${name}`)]);
}

export function writeCorpus(contentDir: string, count: number, variant: CorpusVariant = 'standard', seed = 42): void {
  const r = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const sentence = () => {
    const w = words(8 + Math.floor(r() * 12)).split(' ');
    const i = Math.floor(r() * w.length);
    if (r() < 0.2) w[i] = `*${w[i]}*`;
    else if (r() < 0.15) w[i] = `**${w[i]}**`;
    else if (r() < 0.1) w[i] = `\`${w[i]}\``;
    // biome-ignore lint/suspicious/noDuplicateElseIf: each r() is a new draw, not the same condition
    else if (r() < 0.1) w[i] = `[${w[i]}](https://example.com/${w[i]})`;
    const s = w.join(' ');
    return `${s[0]!.toUpperCase() + s.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 4 + Math.floor(r() * 5) }, sentence).join(' ');
  const text: CorpusText = { r, pick, words, sentence, paragraph };
  const site = path.join(contentDir, 'bench');
  fs.mkdirSync(path.join(site, 'articles'), { recursive: true });
  fs.mkdirSync(path.join(site, 'authors'), { recursive: true });
  fs.writeFileSync(path.join(site, 'site.yaml'), 'name: Bench\nlang: en\nurl: https://bench.example.com\n');
  for (const a of ['ann', 'bo', 'cy'])
    fs.writeFileSync(
      path.join(site, 'authors', `${a}.yaml`),
      `name: ${a.toUpperCase()} Writer\nurl: https://bench.example.com/${a}\n`,
    );
  fs.mkdirSync(path.join(site, 'images'), { recursive: true });
  const images = variant === 'dense' ? DENSE_IMAGES : IMAGES;
  for (const name of images) {
    fs.mkdirSync(path.dirname(path.join(site, 'images', name)), { recursive: true });
    fs.writeFileSync(path.join(site, 'images', name), pngBytes(name));
  }
  const standardBody = () => {
    const list = (marker: () => string) =>
      Array.from({ length: 4 + Math.floor(r() * 3) }, () => `${marker()} ${sentence()}`).join('\n');
    const parts: string[] = [paragraph(), paragraph(), `## ${words(3)}`, paragraph(), paragraph(), list(() => '-')];
    parts.push(`![${words(3)}](../images/${pick(IMAGES)})`, paragraph(), `### ${words(2)}`, paragraph(), paragraph());
    parts.push(
      `| ${words(1)} | ${words(1)} | ${words(1)} |\n| --- | --- | ---: |\n${Array.from({ length: 5 }, () => `| ${words(1)} | ${words(2)} | ${Math.floor(r() * 1000)} |`).join('\n')}`,
    );
    parts.push(
      paragraph(),
      `## ${words(2)}`,
      paragraph(),
      `\`\`\`js\nconst ${pick(WORDS)} = ${Math.floor(r() * 100)};\nconsole.log(${pick(WORDS)});\n\`\`\``,
    );
    parts.push(
      paragraph(),
      list(() => '1.'),
      `> ${sentence()} ${sentence()}`,
      `${paragraph()} See the note[^1].`,
      paragraph(),
    );
    // About one article in nine carries inline HTML, as editors' content does.
    if (r() < 0.11)
      parts.push(
        `<details>\n<summary>${words(3)}</summary>\n\n${paragraph()}\n\n</details>`,
        `<p>A <abbr title="${words(2)}">${pick(WORDS)}</abbr> and a <kbd>Ctrl</kbd> key.</p>`,
      );
    parts.push(`## ${words(2)}`, paragraph(), paragraph(), `[^1]: ${sentence()}`);
    return parts.join('\n\n');
  };
  for (let i = 0; i < count; i++) {
    const body = variant === 'dense' ? denseArticleBody(text, i, count) : standardBody();
    const day = String(1 + (i % 28)).padStart(2, '0');
    const month = String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0');
    const front = [
      `title: "${words(4)} ${i}"`,
      `slug: article-${i}`,
      `status: ${r() < 0.95 ? 'published' : 'draft'}`,
      `author: ${pick(['ann', 'bo', 'cy'])}`,
      `publishedAt: 2025-${month}-${day}T08:00:00Z`,
      `updatedAt: 2025-${month}-${day}T09:30:00Z`,
      `metaDescription: "${sentence()}"`,
    ];
    fs.writeFileSync(path.join(site, 'articles', `article-${i}.md`), `---\n${front.join('\n')}\n---\n\n${body}\n`);
  }
}

/** Changes one article's body, so its render and payload change; returns the undo. */
export function editArticle(contentDir: string, index: number, stamp: string): () => void {
  const file = path.join(contentDir, 'bench', 'articles', `article-${index}.md`);
  const original = fs.readFileSync(file);
  fs.appendFileSync(file, `\nEdited ${stamp}.\n`);
  return () => fs.writeFileSync(file, original);
}
