// patches/micromark-util-subtokenize+*.patch and micromark's postprocess: the chunks of a document
// (flow in containers, content, text) are expanded in one walk (`subtokenizeAll`) instead of by
// calling `subtokenize` until it finds nothing left, a walk per level of nesting
// (docs/benchmarks-log.md). The events must be the same, positions and token types included: the
// container exits moved before their line endings, blank line endings retyped, task list items.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { subtokenize, subtokenizeAll } from 'micromark-util-subtokenize';
import type { Event, Extension, ParseOptions, Point } from 'micromark-util-types';
import { describe, expect, it } from 'vitest';

// micromark exports neither its parser nor its preprocessor: load them from the build in use (dev/
// under the test runner's `development` condition), next to the entry point it resolves to.
const entryDir = path.dirname(createRequire(import.meta.url).resolve('micromark'));
const micromarkDir = path.basename(entryDir) === 'dev' ? path.dirname(entryDir) : entryDir;
type Parse = (options?: ParseOptions) => { document: () => { write: (chunks: unknown[]) => Event[] } };
const { parse } = (await import(pathToFileURL(path.join(entryDir, 'lib', 'parse.js')).href)) as { parse: Parse };
const { preprocess } = (await import(pathToFileURL(path.join(entryDir, 'lib', 'preprocess.js')).href)) as {
  preprocess: () => (value: string, encoding: undefined, end: boolean) => unknown[];
};

const GFM: Extension[] = [gfmAutolinkLiteral(), gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];

/** The document's events before postprocessing (a fresh parse: expanding chunks changes tokens). */
function tokenize(markdown: string, extensions: Extension[]): Event[] {
  return parse({ extensions })
    .document()
    .write(preprocess()(markdown, undefined, true));
}

const point = (p: Point) => `${p.line}:${p.column}:${p.offset}:${p._index}:${p._bufferIndex}`;
const serialize = (events: Event[]) =>
  events.map(([kind, token]) => `${kind} ${token.type} ${point(token.start)} ${point(token.end)}`);

function bothWays(markdown: string, extensions: Extension[]): { stock: string[]; patched: string[] } {
  const stock = tokenize(markdown, extensions);
  while (!subtokenize(stock)) {
    // as micromark's postprocess did
  }
  return { stock: serialize(stock), patched: serialize(subtokenizeAll(tokenize(markdown, extensions))) };
}

const DOCUMENTS = [
  '> a\nlazy\n> b\n\n> c\n\n\nd',
  '- a\n- b\n\n  c\n- [ ] task\n- [x] done\n\n      code\n\n1. one\n2) two\n\n\n3. three',
  '- > - [ ] deep\n  >   lazy\n  > > more\n\n  after\n\n- \n  late start',
  '> - a\n>\n>   b\n> - c\n>\n\n- x\n\n\n- y\n',
  'Text [^1] and [ref].\n\n[^1]: Note\n    with code\n\n    > and quote\n\n[ref]: https://example.com "t"',
  '| a | b |\n| - | - |\n| `c` | [d](e) |\n> | q |\n> | - |\n> | r |',
  '```js\na\n```\n- ```\n  b\n  ```\n> ~~~\n> c\n\n    d\n\n<div>\n*e*\n</div>\n\nhttps://x.example/a?b=1&c="2" www.example.com a@b.co',
  'Setext\n===\n\n* a\n\n* b\n  ***\n\ttab\n \r\n- crlf\r\n  lazy\r\n\r\n- cr\r  more\r',
];

/** Seeded, so a failure names a document that can be replayed. */
function randomDocuments(count: number): string[] {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const inline = [
    'foo',
    '*em* `code`',
    '[a](b)',
    '[ref]',
    '[^1]',
    'http://x.example/a?b=&c="d"',
    '~~del~~',
    '<span>h</span>',
    'line  ',
    'back\\',
    '',
  ];
  const blocks = [
    '# h',
    'Set\n===',
    '```\ncode\n```',
    '    indented',
    '| a |\n| - |\n| b |',
    '[ref]: /u',
    '[^1]: note',
    '<div>\nx\n</div>',
    '***',
    '',
  ];
  const prefixes = ['', '> ', '- ', '1. ', '  ', '    ', '- [ ] ', '> - ', '- > ', '>', '\t', '   > '];
  return Array.from({ length: count }, () => {
    const lines: string[] = [];
    for (let i = 1 + Math.floor(random() * 10); i > 0; i--) {
      const prefix = pick(prefixes);
      const block = (random() < 0.5 ? `${pick(inline)} ${pick(inline)}` : pick(blocks)).split('\n');
      const rest = random() < 0.5 ? prefix.replace(/-|\d+\./g, (m) => ' '.repeat(m.length)).replace(/\[ \] /, '') : '';
      block.forEach((line, j) => lines.push((j === 0 ? prefix : rest) + line));
      if (random() < 0.3) lines.push(random() < 0.5 ? '' : pick(prefixes).trimEnd());
    }
    return lines.join(pick(['\n', '\n', '\r\n']));
  });
}

describe('micromark-util-subtokenize patch', () => {
  it('is applied: postprocess expands in one walk', () => {
    expect(fs.readFileSync(path.join(micromarkDir, 'lib', 'postprocess.js'), 'utf8')).toContain(
      'subtokenizeAll(events)',
    );
    expect(fs.readFileSync(path.join(micromarkDir, 'dev', 'lib', 'postprocess.js'), 'utf8')).toContain(
      'subtokenizeAll(events)',
    );
  });

  it('gives the events repeated subtokenize gives, with and without GFM', () => {
    for (const markdown of DOCUMENTS) {
      for (const extensions of [[], GFM]) {
        const { stock, patched } = bothWays(markdown, extensions);
        expect(patched, JSON.stringify(markdown)).toEqual(stock);
      }
    }
  });

  it('gives the same events on 200 seeded random documents of nested containers', () => {
    for (const markdown of randomDocuments(200)) {
      const { stock, patched } = bothWays(markdown, GFM);
      expect(patched, JSON.stringify(markdown)).toEqual(stock);
    }
  });
});
