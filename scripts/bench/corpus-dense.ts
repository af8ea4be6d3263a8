// The dense bench article: the standard one's shape, with what technical writing has more of:
// about three times the links (inline and reference-style, external, to other articles and
// in-page), three or four images (some with titles, some in a subfolder), four to six fenced code
// blocks with languages, and nested bullet, numbered and task lists. Deterministic: it draws
// only from the corpus's seeded random source.
import type { CorpusText } from './corpus.ts';

export const DENSE_IMAGES = [
  'ridge.png',
  'valley.png',
  'harbour.png',
  'cairn.png',
  'ford.png',
  'summit.png',
  'maps/north.png',
  'maps/south.png',
  'maps/coast.png',
  'gear/rope.png',
  'gear/lantern.png',
  'gear/compass.png',
];

const WORDS =
  'river ridge trail map contour valley saddle summit water wind forecast granite birch moss lichen shelter bridge ford gully scree cairn compass bearing'.split(
    ' ',
  );
const HOSTS = [
  'https://example.com',
  'https://docs.example.org/guide',
  'https://maps.example.net/area',
  'https://weather.example.com/forecast',
];

const CODE: Record<string, (t: CorpusText) => string[]> = {
  js: (t) => [
    `const ${t.pick(WORDS)} = await fetch('/api/${t.pick(WORDS)}');`,
    `if (${t.pick(WORDS)}.length > ${Math.floor(t.r() * 50)} && ok) {`,
    `  console.log(\`<${t.pick(WORDS)}> & more\`);`,
    '}',
  ],
  ts: (t) => [
    `interface ${cap(t.pick(WORDS))} {`,
    `  ${t.pick(WORDS)}: string;`,
    `  ${t.pick(WORDS)}?: number[];`,
    '}',
    `export const limit: Map<string, number> = new Map([['${t.pick(WORDS)}', ${Math.floor(t.r() * 100)}]]);`,
  ],
  sh: (t) => [
    `mkdir -p ~/${t.pick(WORDS)}/${t.pick(WORDS)}`,
    `curl -s "https://example.com/${t.pick(WORDS)}?q=${t.pick(WORDS)}&n=${Math.floor(t.r() * 9)}" | jq '.items[]'`,
    `echo "done" >> ${t.pick(WORDS)}.log`,
  ],
  yaml: (t) => [
    `${t.pick(WORDS)}:`,
    `  ${t.pick(WORDS)}: ${Math.floor(t.r() * 1000)}`,
    `  tags: [${t.pick(WORDS)}, ${t.pick(WORDS)}]`,
    `  note: "${t.words(4)}"`,
  ],
  json: (t) => [
    '{',
    `  "${t.pick(WORDS)}": ${Math.floor(t.r() * 1000)},`,
    `  "${t.pick(WORDS)}": ["${t.pick(WORDS)}", "${t.pick(WORDS)}"],`,
    `  "ok": ${t.r() < 0.5}`,
    '}',
  ],
  python: (t) => [
    `def ${t.pick(WORDS)}_${t.pick(WORDS)}(points):`,
    `    """${cap(t.words(5))}."""`,
    `    return [p for p in points if p.${t.pick(WORDS)} < ${Math.floor(t.r() * 100)}]`,
  ],
};
const LANGS = Object.keys(CODE);

function cap(s: string): string {
  return s[0]!.toUpperCase() + s.slice(1);
}

export function denseArticleBody(t: CorpusText, index: number, count: number): string {
  const { r, pick, words } = t;
  const headings: string[] = [];
  const references: string[] = [];
  const slug = (h: string) => h.toLowerCase().replace(/\s+/g, '-');
  const link = (text: string): string => {
    const kind = r();
    if (kind < 0.45) return `[${text}](${pick(HOSTS)}/${text.replace(/\W+/g, '-')})`;
    if (kind < 0.7) return `[${text}](./article-${Math.floor(r() * count)}.md)`;
    if (kind < 0.85 && headings.length) return `[${text}](#${slug(pick(headings))})`;
    const label = `ref-${references.length + 1}`;
    references.push(`[${label}]: ${pick(HOSTS)}/${pick(WORDS)}/${index} "${cap(words(3))}"`);
    return `[${text}][${label}]`;
  };
  // The standard sentence, with an extra inline or reference link in about one in five.
  const sentence = () => {
    const s = t.sentence();
    if (r() >= 0.2) return s;
    const w = s.split(' ');
    const i = Math.floor(r() * w.length);
    if (/^[a-z]+$/.test(w[i]!)) w[i] = link(w[i]!);
    return w.join(' ');
  };
  const paragraph = () => Array.from({ length: 4 + Math.floor(r() * 5) }, sentence).join(' ');
  const heading = (level: number, n: number) => {
    const h = words(n);
    headings.push(h);
    return `${'#'.repeat(level)} ${h}`;
  };
  const image = () => {
    const name = pick(DENSE_IMAGES);
    return r() < 0.4 ? `![${words(3)}](../images/${name} "${cap(words(2))}")` : `![${words(3)}](../images/${name})`;
  };
  const code = () => {
    const lang = pick(LANGS);
    return `\`\`\`${lang}\n${CODE[lang]!(t).join('\n')}\n\`\`\``;
  };
  const nested = (marker: (i: number) => string, indent: string) =>
    Array.from({ length: 3 + Math.floor(r() * 3) }, (_, i) => {
      const item = `${marker(i)} ${sentence()}`;
      if (r() >= 0.4) return item;
      const sub = Array.from(
        { length: 2 + Math.floor(r() * 2) },
        () => `${indent}- ${r() < 0.3 ? `[${r() < 0.5 ? 'x' : ' '}] ` : ''}${sentence()}`,
      );
      return `${item}\n${sub.join('\n')}`;
    }).join('\n');

  const images = 3 + Math.floor(r() * 2);
  const codes = 4 + Math.floor(r() * 3);
  const parts: string[] = [paragraph(), paragraph(), heading(2, 3), paragraph(), nested(() => '-', '  ')];
  const sections = Math.max(images, codes);
  for (let s = 0; s < sections; s++) {
    parts.push(s % 2 ? heading(3, 2) : heading(2, 2), paragraph());
    if (s < images) parts.push(image());
    if (s < codes) parts.push(code());
    if (s === 1) parts.push(nested((i) => `${i + 1}.`, '   '));
    if (s === 2)
      parts.push(
        `| ${words(1)} | ${words(1)} | ${words(1)} |\n| --- | --- | ---: |\n${Array.from({ length: 5 }, () => `| ${words(1)} | ${link(words(1))} | ${Math.floor(r() * 1000)} |`).join('\n')}`,
      );
    if (s === 3) parts.push(`> ${sentence()} ${sentence()}\n>\n> - ${sentence()}\n> - ${sentence()}`);
  }
  parts.push(`${paragraph()} See the note[^1].`, paragraph());
  if (r() < 0.11)
    parts.push(
      `<details>\n<summary>${words(3)}</summary>\n\n${paragraph()}\n\n</details>`,
      `<p>A <abbr title="${words(2)}">${pick(WORDS)}</abbr> and a <kbd>Ctrl</kbd> key.</p>`,
    );
  parts.push(`[^1]: ${sentence()}`);
  if (references.length) parts.push(references.join('\n'));
  return parts.join('\n\n');
}
