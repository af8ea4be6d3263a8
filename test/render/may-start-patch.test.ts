// patches/micromark+*.patch (create-tokenizer, document), micromark-core-commonmark+*.patch
// (blank-line) and src/render/gfm-parser.ts: a construct may say with `_mayStart(code, context)`
// that it cannot start at a code, and the attempt then fails before a snapshot of the tokenizer
// is taken and the construct's states are made. Blank lines and containers are tried at every
// line and fail at once on most; the task list item check is tried at every `[` of every link.
// Here the same documents are parsed with the hooks and with them removed (what the attempts did
// before the patch): the events must be the same, points included (`_index`, `_bufferIndex`).
// The table gate of gfm-parser.ts only acts inside parseGfm: test/render/gfm-parser.test.ts holds
// its trees to remark-gfm's.
import { blankLine } from 'micromark-core-commonmark';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import type { Code, Construct, Event, Extension, Point, TokenizeContext } from 'micromark-util-types';
import { afterEach, describe, expect, it } from 'vitest';
import { fastGfmParser } from '../../src/render/gfm-parser.ts';
import { corpusBodies, loadMicromark, parse, postprocess, preprocess } from '../helpers/micromark-internals.ts';

// micromark does not export its container construct: it is loaded from the build in use.
const { containerConstruct } = await loadMicromark<{ containerConstruct?: Construct }>('initialize/document.js');

type MayStart = (code: Code, context: TokenizeContext) => boolean;
type Prechecked = Construct & { _mayStart?: MayStart };

const GFM: Extension[] = [gfmAutolinkLiteral(), gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];
/** Quire's syntax extensions: the task list item check has a hook. */
const QUIRE_GFM = (fastGfmParser.data() as { micromarkExtensions: Extension[] }).micromarkExtensions;

/** The constructs with a hook in an extension's construct records. */
function precheckedIn(extensions: Extension[]): Prechecked[] {
  const found = new Set<Prechecked>();
  for (const extension of extensions) {
    for (const record of Object.values(extension)) {
      for (const value of Object.values((record ?? {}) as Record<string, unknown>)) {
        for (const construct of (Array.isArray(value) ? value : [value]) as Prechecked[]) {
          if (construct && typeof construct._mayStart === 'function') found.add(construct);
        }
      }
    }
  }
  return [...found];
}

const hooked: Prechecked[] = [blankLine as Prechecked, containerConstruct as Prechecked, ...precheckedIn(QUIRE_GFM)];
const originals = new Map(hooked.map((construct) => [construct, construct._mayStart]));
/** How often each hook said no, by construct. */
const refusals = new Map<Prechecked, number>();
afterEach(() => hooked.forEach((construct) => (construct._mayStart = originals.get(construct))));

/** Parse with the hooks as patched (counting their refusals) or removed. */
function events(markdown: string, extensions: Extension[], withHooks: boolean): string[] {
  for (const construct of hooked) {
    const original = originals.get(construct)!;
    construct._mayStart = withHooks
      ? (code, context) => {
          const may = original(code, context);
          if (!may) refusals.set(construct, (refusals.get(construct) ?? 0) + 1);
          return may;
        }
      : undefined;
  }
  try {
    return serialize(
      postprocess(
        parse({ extensions })
          .document()
          .write(preprocess()(markdown, undefined, true)),
      ),
    );
  } finally {
    hooked.forEach((construct) => (construct._mayStart = originals.get(construct)));
  }
}

const point = (p: Point) => `${p.line}:${p.column}:${p.offset}:${p._index}:${p._bufferIndex}`;
const serialize = (list: Event[]) =>
  list.map(([kind, token]) => `${kind} ${token.type} ${point(token.start)} ${point(token.end)}`);

function expectSameEvents(documents: string[]): void {
  for (const markdown of documents) {
    for (const extensions of [[], GFM, QUIRE_GFM]) {
      expect(events(markdown, extensions, true), JSON.stringify(markdown)).toEqual(events(markdown, extensions, false));
    }
  }
}

const DOCUMENTS = [
  'para\n\n  \n\t\n \t \npara  \nnext\n\n\n',
  '> quote\nlazy\n>\n> - a\n>   b\n\n- x\n  - y\n\n    code in item\n\n* star\n+ plus\n\n10. ten\n2) two\n\n1.no\n-no',
  '- [ ] task\n- [x] done\n- [link](u) [ ] not a task\n\n  [ ] second paragraph\n\n> - [ ] quoted task\n\n[ ] outside',
  '    indented\n  two\n   three\n\tone tab\n\n   - deep marker\n    - four spaces\n\n[^1]: note\n    continued\n\n[ref]: /u "t"\n\n[^1] [ref]',
  '| a | b |\n| - | - |\n| c | d |\n\n> | q |\n> | - |\n\n- | r |\n  | - |',
  '```\n\n  \n```\n~~~\n> not a quote\n- not a list\n~~~\n<div>\n\n</div>\n\n***\n---\n___',
  'crlf\r\n\r\n> q\r\n>\r\n- a\r\n\r\n  b\r\ncr\r\r- c\r',
  '',
  ' ',
  '\n',
  '-',
  '>',
  '[',
];

/** Seeded, so a failure names a document that can be replayed. */
function randomDocuments(count: number): string[] {
  let seed = 41;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const inline = [
    'word',
    '*em*',
    '`code`',
    '[a](b)',
    '[ref]',
    '[^1]',
    '[ ]',
    '[x]',
    '~~del~~',
    '<b>h</b>',
    'line  ',
    'back\\',
    'www.x.example',
    '',
  ];
  const blocks = [
    '# h',
    'Set\n===',
    '```\ncode\n\n```',
    '    indented',
    '| a |\n| - |\n| b |',
    '[ref]: /u',
    '[^1]: note',
    '<div>\nx\n</div>',
    '***',
    '',
    ' ',
    '\t',
  ];
  const prefixes = [
    '',
    '',
    '> ',
    '- ',
    '* ',
    '+ ',
    '1. ',
    '2) ',
    '  ',
    '    ',
    '- [ ] ',
    '- [x] ',
    '> - ',
    '- > ',
    '>',
    '\t',
    '   > ',
    ' \t',
    '[^1]: ',
  ];
  return Array.from({ length: count }, () => {
    const lines: string[] = [];
    for (let i = 1 + Math.floor(random() * 10); i > 0; i--) {
      const prefix = pick(prefixes);
      const block = (random() < 0.5 ? `${pick(inline)} ${pick(inline)}` : pick(blocks)).split('\n');
      const rest =
        random() < 0.5
          ? prefix.replace(/[-*+]|\d+[.)]|\[\^1\]:/g, (m) => ' '.repeat(m.length)).replace(/\[[ x]\] /, '')
          : '';
      block.forEach((line, j) => lines.push((j === 0 ? prefix : rest) + line));
      if (random() < 0.4) lines.push(random() < 0.5 ? '' : pick([' ', '\t', '  \t', pick(prefixes).trimEnd()]));
    }
    return lines.join(pick(['\n', '\n', '\r\n', '\r']));
  });
}

describe('micromark _mayStart patch', () => {
  it('is applied, and each hook refuses attempts', () => {
    expect(
      (containerConstruct as Prechecked | undefined)?._mayStart,
      'document.js exports its container construct, with a hook',
    ).toBeTypeOf('function');
    expect((blankLine as Prechecked)._mayStart).toBeTypeOf('function');
    const names = precheckedIn(QUIRE_GFM).map((construct) => construct.name);
    expect(names.sort()).toEqual(['table', 'tasklistCheck']);
    refusals.clear();
    events('text [link](u) and\n\n- [ ] task [x]\n\n> more', QUIRE_GFM, true);
    for (const construct of hooked.filter((c) => c.name !== 'table'))
      expect(refusals.get(construct), construct.tokenize.name).toBeGreaterThan(0);
  });

  it('would notice a hook that refuses where the construct starts', () => {
    const wrong = (construct: Prechecked, markdown: string) => {
      const original = originals.get(construct)!;
      originals.set(construct, (code, context) => code !== 32 && code !== -4 && original(code, context));
      try {
        return events(markdown, QUIRE_GFM, true);
      } catch (err) {
        return [`threw: ${String(err)}`]; // the development build's assertions may catch it first
      } finally {
        originals.set(construct, original);
      }
    };
    expect(wrong(blankLine as Prechecked, 'a\n \nb')).not.toEqual(events('a\n \nb', QUIRE_GFM, false));
    expect(wrong(containerConstruct!, ' > q')).not.toEqual(events(' > q', QUIRE_GFM, false));
  });

  it('gives the same events as attempting every construct', () => {
    expectSameEvents(DOCUMENTS);
  });

  it('gives the same events on 1,000 seeded random documents', () => {
    expectSameEvents(randomDocuments(1_000));
  });

  it('gives the same events on the bench corpora', () => {
    expectSameEvents([...corpusBodies('standard', 20), ...corpusBodies('dense', 40)]);
  });
});
