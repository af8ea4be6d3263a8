// patches/micromark+*.patch and micromark-core-commonmark+*.patch: the states that consume every
// character up to a line ending (the document's line, content, paragraph text, fenced code) and
// the text states that consume up to the next character with a construct call `consumeRun`, which
// takes the rest of the current text chunk in one step instead of one state call per character.
// Here the same states run both ways, `consumeRun` swapped for plain `consume` (what the states
// did before the patch): the events must be the same, points included (`_index`, `_bufferIndex`).
import { codeFenced, content as contentConstruct } from 'micromark-core-commonmark';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import type { Code, Construct, Effects, Event, Extension, Initializer, Point } from 'micromark-util-types';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusBodies, loadMicromark as load, parse, postprocess, preprocess } from '../helpers/micromark-internals.ts';

// micromark exports none of its initializers: they are loaded from the build in use.
const { document } = await load<{ document: { tokenize: Initializer } }>('initialize/document.js');
const { content } = await load<{ content: { tokenize: Initializer } }>('initialize/content.js');
const { string, text } = await load<{ string: { tokenize: Initializer }; text: { tokenize: Initializer } }>(
  'initialize/text.js',
);

type RunEffects = Effects & { consumeRun: (code: Code, stops?: Record<string, unknown>) => undefined };

/** Whether the states get `consumeRun` as patched or as plain `consume`; and how often runs were taken. */
let stock = false;
let runs = 0;

// Each state that calls `consumeRun` gets its effects from one of these tokenize functions.
const wrapped: { tokenize: Construct['tokenize'] | Initializer }[] = [
  document,
  content,
  string,
  text,
  contentConstruct,
  codeFenced,
];
const originals = wrapped.map((holder) => holder.tokenize);
wrapped.forEach((holder, i) => {
  const original = originals[i] as (this: unknown, effects: Effects, ...rest: unknown[]) => unknown;
  holder.tokenize = function (this: unknown, effects: Effects, ...rest: unknown[]) {
    const patched = (effects as RunEffects).consumeRun;
    const consumeRun = stock
      ? (code: Code) => effects.consume(code)
      : (code: Code, stops?: Record<string, unknown>) => {
          runs++;
          return patched(code, stops);
        };
    return original.call(this, { ...effects, consumeRun }, ...rest);
  } as never;
});
afterAll(() => wrapped.forEach((holder, i) => (holder.tokenize = originals[i] as never)));

const point = (p: Point) => `${p.line}:${p.column}:${p.offset}:${p._index}:${p._bufferIndex}`;
const serialize = (events: Event[]) =>
  events.map(([kind, token]) => `${kind} ${token.type} ${point(token.start)} ${point(token.end)}`);

function events(markdown: string, extensions: Extension[], asStock: boolean): string[] {
  stock = asStock;
  try {
    return serialize(
      postprocess(
        parse({ extensions })
          .document()
          .write(preprocess()(markdown, undefined, true)),
      ),
    );
  } finally {
    stock = false;
  }
}

const GFM: Extension[] = [gfmAutolinkLiteral(), gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];
const GFM_WITHOUT_LITERALS: Extension[] = [gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];

function expectSameEvents(documents: string[]): void {
  for (const markdown of documents) {
    for (const extensions of [[], GFM, GFM_WITHOUT_LITERALS]) {
      expect(events(markdown, extensions, false), JSON.stringify(markdown)).toEqual(events(markdown, extensions, true));
    }
  }
}

const DOCUMENTS = [
  'plain text, *emphasis*, **strong**, `code`, [link](https://example.com/a_b "title") and ![img](i.png)',
  'a\tb\tc\n\ttabbed\n  \t mixed\n\0nul\0 and \u0000',
  'crlf line\r\nnext\r\rcr only\r\n\r\n```js\r\nconst a = 1;\r\n```\r\n',
  '```\nfenced *not emphasis* <b>\n\tcode with tab\n```\n~~~py\nx = "y"\n~~~~\n\n````\n```\n````',
  '> quote with *em*\nlazy continuation\n> - list in quote\n>   more\n\n- a\n- b\n  continued `code`\n\n1. one\n2) two',
  'Setext\n===\n\nPara\n---\n\n[ref]: https://example.com "t"\n[^1]: note *x*\n\nuse [ref] and [^1]',
  '| a | b |\n| - | :-: |\n| `c|d` | [e](f) |\n| g \\| h | ~~i~~ |',
  'www.example.com, https://example.com/path?q=1&r="2", mail@example.com, xmpp:a@b.c, http://a_b.c',
  '<div>\n*raw* html\n</div>\n\ninline <span class="x">html</span> &amp; &#35; &copy; \\* \\\\',
  'hard break  \nsoft\\\nbreak\n\n***\n\n    indented code\n    more\n\n# heading #\n## h2',
  'é ü 😀 emoji and CJK 漢字 text *強調* and `コード`\n\n- [ ] task\n- [x] done',
  '',
  'x',
  '*',
  '\n\n\n',
];

/** Seeded, so a failure names a document that can be replayed. */
function randomDocuments(count: number): string[] {
  let seed = 23;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const pieces = [
    'word',
    'two words',
    '*',
    '**',
    '_',
    '~~',
    '`',
    '``',
    '[',
    ']',
    '(',
    ')',
    '!',
    '<',
    '>',
    '&',
    '\\',
    '"',
    "'",
    ':',
    'http://',
    'www.',
    '@',
    '.',
    '|',
    '-',
    '#',
    '\t',
    ' ',
    '  ',
    '\n',
    '\n',
    '\r\n',
    '\r',
    '\n\n',
    '```',
    '~~~',
    '    ',
    '- ',
    '1. ',
    '> ',
    '[^1]',
    '&amp;',
    'é',
    '😀',
    '\0',
  ];
  return Array.from({ length: count }, () => {
    let doc = '';
    for (let i = Math.floor(random() * 60); i > 0; i--) doc += pick(pieces);
    return doc;
  });
}

describe('micromark consumeRun patch', () => {
  it('is applied, and the states take runs', () => {
    runs = 0;
    events('a paragraph of text\n\n```\ncode\n```', [], false);
    expect(runs).toBeGreaterThan(0);
  });

  it('gives the same events as consuming one character at a time', () => {
    expectSameEvents(DOCUMENTS);
  });

  it('gives the same events on 2,000 seeded random documents', () => {
    expectSameEvents(randomDocuments(2_000));
  });

  it('gives the same events on the bench corpora', () => {
    expectSameEvents([...corpusBodies('standard', 20), ...corpusBodies('dense', 40)]);
  });
});
