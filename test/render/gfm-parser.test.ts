// Quire's GFM parsing must give exactly what remark-gfm gives: the same HTML and the same tree,
// positions included, for every document.
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { fastGfmParser, needsLiteralTokenizer, parseGfm, parseGfmTracked } from '../../src/render/gfm-parser.ts';

const stockGfmParser = unified().use(remarkParse).use(remarkGfm).freeze();
const toHtml = unified().use(remarkRehype).use(rehypeStringify);
const html = (tree: ReturnType<typeof stockGfmParser.parse>) => toHtml.stringify(toHtml.runSync(tree));
const reference = (md: string) => html(stockGfmParser.parse(md));
const chosen = (md: string) => html(parseGfm(md, md));
/**
 * The same tree. Positions are compared too, except in documents that may hold bare links: links
 * made by the literal-autolink transform have none, those made by its tokenizer do, and the fast
 * path leaves that tokenizer out (the HTML, compared separately, is the same).
 */
function sameTree(md: string) {
  const withoutPositions = (key: string, value: unknown) => (key === 'position' ? undefined : value);
  const keep = /https?:\/\/|www\.|@/i.test(md) ? withoutPositions : undefined;
  expect(JSON.stringify(parseGfm(md, md), keep), JSON.stringify(md)).toBe(
    JSON.stringify(stockGfmParser.parse(md), keep),
  );
}

/** The same HTML and the same tree as remark-gfm. */
function expectAsRemarkGfm(md: string) {
  expect(chosen(md), JSON.stringify(md)).toBe(reference(md));
  sameTree(md);
}

/**
 * Holds every document to remark-gfm and counts those `exercised` says took the path under test,
 * so a test can show that path really ran.
 */
function countAsRemarkGfm(docs: string[], exercised: (md: string) => boolean): number {
  let count = 0;
  for (const md of docs) {
    expectAsRemarkGfm(md);
    if (exercised(md)) count++;
  }
  return count;
}

/** A seeded generator of whole numbers below n. */
function seededRandom(seed: number): (n: number) => number {
  return (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
}

/** A seeded generator of documents made of the given parts. */
// Thousands of random documents, each parsed twice: CPU-bound and deterministic, so on a loaded
// machine they are slow, never stuck; they get more time than the suite's default.
const CPU_BOUND_TIMEOUT = 120_000;

function randomDocuments(seed: number, parts: string[], count: number, maxParts: number): string[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let md = '';
    const len = 3 + rnd(maxParts);
    for (let j = 0; j < len; j++) md += parts[rnd(parts.length)];
    return md;
  });
}

// From the GFM spec, "Autolinks (extension)", and cases around it.
const CASES = [
  'www.commonmark.org',
  'Visit www.commonmark.org/help for more information.',
  'Visit www.commonmark.org.',
  'Visit www.commonmark.org/a.b.',
  'www.google.com/search?q=Markup+(business)',
  'www.google.com/search?q=Markup+(business)))',
  '(www.google.com/search?q=Markup+(business))',
  '(www.google.com/search?q=Markup+(business)',
  'www.google.com/search?q=(business))+ok',
  'www.google.com/search?q=commonmark&hl=en',
  'www.google.com/search?q=commonmark&hl;',
  'www.commonmark.org/he<lp',
  'http://commonmark.org',
  '(Visit https://encrypted.google.com/search?q=Markup+(business))',
  'foo@bar.baz',
  "hello@mail+xyz.example isn't valid, but hello+xyz@mail.example is.",
  'a.b-c_d@a.b',
  'a.b-c_d@a.b.',
  'a.b-c_d@a.b-',
  'a.b-c_d@a.b_',
  'mailto:foo@bar.baz',
  'mailto:a.b-c_d@a.b',
  'mailto:a.b-c_d@a.b.',
  'mailto:a.b-c_d@a.b/',
  'mailto:a.b-c_d@a.b-',
  'mailto:a.b-c_d@a.b_',
  'xmpp:foo@bar.baz',
  'xmpp:foo@bar.baz.',
  'xmpp:foo@bar.baz/txt',
  'xmpp:foo@bar.baz/txt@bin',
  'xmpp:foo@bar.baz/txt@bin.com',
  'www.example.com/a_b_c_ and *https://x.example/y*',
  '_https://x.example/y_',
  '**www.example.com**',
  '~~https://example.com~~',
  'https://example.com/`code`',
  '[https://example.com](https://example.org)',
  '`https://example.com`',
  '<https://example.com>',
  'https://example.com/\\*not\\*',
  'https://example.com/&amp;x',
  '![https://a.example/img.png](https://a.example/img.png)',
  'A line with https://a.example/path?x=1&y=2#frag, then text.',
  '| a | b |\n|---|---|\n| https://a.example | www.b.example |',
  '- [ ] https://a.example\n- [x] www.b.example',
  'Footnote[^1] https://a.example\n\n[^1]: www.b.example',
  'user@example.com.',
  '@mention and email@sub.example.org',
  'http://a.example/_x_/ and http://b.example',
  'http://a.example/~user/',
  'www.',
  'http://',
  'https://x',
  'www.x',
  // Text the literal-link transform skips (inside links), with no other candidate.
  '<https://example.com/a> and [www.example.com](https://example.org) and [b@example.com](mailto:b@example.com)',
  '[see https://example.com][ref] and [www.x.example]\n\n[ref]: https://example.org\n[www.x.example]: /y',
  '[**https://example.com/a**](https://example.org) then www.example.com outside',
  '[a](https://example.org) b@example.com c',
];

describe('fast GFM parsing', () => {
  it.each(CASES)('matches remark-gfm: %j', (md) => {
    expectAsRemarkGfm(md);
  });

  it(
    'matches remark-gfm on random documents mixing URLs and markup',
    () => {
      const parts = [
        'https://',
        'http://',
        'www.',
        'mailto:',
        'xmpp:',
        '@',
        'example',
        '.com',
        '.org',
        '/',
        'a',
        'b',
        '_',
        '*',
        '~',
        '(',
        ')',
        '[',
        ']',
        '`',
        '<',
        '>',
        '&',
        ';',
        '\\',
        '!',
        '?',
        '=',
        '#',
        '.',
        ',',
        ':',
        '-',
        '+',
        ' ',
        ' ',
        ' ',
        '\n',
        '\n\n',
        '"',
        "'",
        '|',
        '^',
        '%20',
      ];
      const compared = countAsRemarkGfm(randomDocuments(12345, parts, 4000, 25), (md) => !needsLiteralTokenizer(md));
      expect(compared).toBeGreaterThan(500); // the fast path was really exercised
    },
    CPU_BOUND_TIMEOUT,
  );

  it('takes the fast path for plain prose with ordinary links', () => {
    expect(needsLiteralTokenizer('Read [the guide](https://example.com/guide) or www.example.org/docs today.')).toBe(
      false,
    );
    expect(needsLiteralTokenizer('See https://example.com/a_b for more.')).toBe(true);
    expect(html(fastGfmParser.parse('Plain www.example.org/docs text.'))).toContain(
      '<a href="http://www.example.org/docs">',
    );
  });
});

// Odd-shaped bare URLs inside code and HTML blocks, where neither way finds links, next to the
// same URLs in prose, lists, quotes, footnotes and lazy lines, where they must still count.
const RAW_BLOCK_CASES = [
  '```sh\ncurl "https://a.example/?q=x&n=1" | jq\n```\n\nText www.b.example/docs.',
  '```\nhttps://a.example/a_b_\n```\nhttps://a.example/a_b_',
  '    curl "https://a.example/?q=x&n=1"\n\nplain https://b.example',
  '- item\n\n  ```js\n  fetch("https://a.example/?a&b")\n  ```\n- https://c.example/x_y_',
  '> ```\n> https://a.example/`x`\n> ```\n> then https://a.example/`x`',
  '<pre>\nhttps://a.example/?a&b"\n</pre>\n\nafter',
  '<div>\nhttps://a.example/_x_\n</div>\nhttps://a.example/_x_',
  '~~~\nmailto:a@b.example\n~~~\nmailto:a@b.example',
  '[^1]: note\n\n    ```\n    https://a.example/?x&y"\n    ```\n\nText[^1]',
  'para\n```\nhttps://a.example/*x*\n```',
  '```\nunclosed https://a.example/*x*',
  'a `https://a.example/?a&b"` span',
];

describe('odd URLs in code and HTML blocks', () => {
  it.each(RAW_BLOCK_CASES)('matches remark-gfm: %j', (md) => {
    expectAsRemarkGfm(md);
  });

  it('keeps the fast parse when every odd URL is in a code or HTML block, and only then', () => {
    expect(parseGfmTracked(RAW_BLOCK_CASES[0]!, RAW_BLOCK_CASES[0]!).literalTokenizer).toBe(false);
    expect(parseGfmTracked(RAW_BLOCK_CASES[5]!, RAW_BLOCK_CASES[5]!).literalTokenizer).toBe(false);
    expect(parseGfmTracked(RAW_BLOCK_CASES[1]!, RAW_BLOCK_CASES[1]!).literalTokenizer).toBe(true);
    expect(parseGfmTracked(RAW_BLOCK_CASES[11]!, RAW_BLOCK_CASES[11]!).literalTokenizer).toBe(true); // inline code is not a block
  });

  it(
    'matches remark-gfm on random documents mixing blocks, containers and odd URLs',
    () => {
      const parts = [
        '```',
        '```sh',
        '~~~',
        '    ',
        '> ',
        '- ',
        '1. ',
        '[^1]: ',
        '<pre>',
        '</pre>',
        '<div>',
        '</div>',
        'Text[^1]',
        'https://a.example/?q=x&n=1"',
        'https://a.example/_x_',
        'www.b.example/`c`',
        'mailto:a@b.example',
        'https://plain.example/p',
        'word',
        ' ',
        ' ',
        '\n',
        '\n',
        '\n\n',
        '\t',
        '*',
        '_',
        '`',
      ];
      const compared = countAsRemarkGfm(
        randomDocuments(4242, parts, 4000, 30),
        (md) => needsLiteralTokenizer(md) && !parseGfmTracked(md, md).literalTokenizer,
      );
      expect(compared).toBeGreaterThan(300); // the kept fast parse was really exercised
    },
    CPU_BOUND_TIMEOUT,
  );
});

// Tables are only tried where the next line could be a delimiter row; these hold that gate to
// remark-gfm wherever a table can start: in lists, quotes, footnotes, after paragraphs, with
// tabs, CR and CRLF line endings, lazy lines and ragged rows.
const TABLE_CASES = [
  '| a | b |\n| - | - |\n| 1 | 2 |',
  'a | b\n--|--\n1 | 2',
  'a|b\n-|-',
  '| a |\n| --- |',
  '| a |\n|:-:|\n| b |',
  'a\n-',
  'a\n---',
  'a | b\n---',
  '| a | b |\n| - |',
  'para\n| a | b |\n| - | - |',
  'para\n\n| a | b |\n| - | - |\nlazy row\n\nafter',
  '> | a | b |\n> | - | - |\n> | 1 | 2 |\n| 3 | 4 |',
  '> | a | b |\n| - | - |',
  '- | a | b |\n  | - | - |\n  | 1 | 2 |',
  '1. x\n\n   a | b\n   :-: | --:\n   1 | 2',
  '[^1]: | a | b |\n    | - | - |\n\nText[^1]',
  '\t| a | b |\n\t| - | - |',
  '   | a | b |\n   | - | - |',
  '| a | b |\r\n| - | - |\r\n| 1 | 2 |',
  '| a | b |\r| - | - |\r| 1 | 2 |',
  '| a \\| b |\n| --- |',
  '| `a|b` | c |\n| - | - |',
  '# h | x\n| - | - |',
  '```\n| a | b |\n| - | - |\n```',
  '    | a | b |\n    | - | - |',
  '<div>\n| a | b |\n| - | - |\n</div>',
  '| a | b |\n| - | - |\n> | c | d |\n> | - | - |',
];

describe('table gate', () => {
  it.each(TABLE_CASES)('matches remark-gfm: %j', (md) => {
    expectAsRemarkGfm(md);
  });

  it(
    'matches remark-gfm on random documents built from table parts',
    () => {
      const parts = [
        '|',
        '|',
        '|',
        ' | ',
        '| a | b |\n',
        '| - | - |\n',
        'a | b\n',
        '-|-\n',
        '-',
        '--',
        '---',
        ':',
        ':-',
        '-:',
        'a',
        'b c',
        '`x`',
        '\\|',
        '> ',
        '>',
        '- ',
        '1. ',
        '* ',
        '[^1]: ',
        '[^1]',
        '\n',
        '\n',
        '\n',
        '\n\n',
        '\r\n',
        '\r',
        '\t',
        '  ',
        '    ',
        '#',
        '=',
        '<div>',
        '```',
        '~~',
        'www.x.org',
        'e@x.io',
      ];
      const tables = countAsRemarkGfm(randomDocuments(777, parts, 1500, 30), (md) => reference(md).includes('<table>'));
      expect(tables).toBeGreaterThan(80); // tables were really made, not only refused
    },
    CPU_BOUND_TIMEOUT,
  );

  it(
    'matches remark-gfm on random documents built line by line from rows and containers',
    () => {
      const prefixes = ['', '', '', '> ', '>', '- ', '  ', '   ', '    ', '\t', '1. ', '[^1]: ', '> - '];
      const rows = [
        '| a | b |',
        'a | b',
        '|a|',
        'a',
        '| - | - |',
        '-|-',
        '--- | :-:',
        ':-',
        '|---|',
        '---',
        '| x | y | z |',
        '',
        'text',
        '| `a|b` | \\| |',
        '# h | x',
      ];
      const endings = ['\n', '\n', '\n', '\r\n', '\r'];
      const rnd = seededRandom(99);
      const docs = Array.from({ length: 1500 }, () => {
        let md = '';
        for (let line = 2 + rnd(6); line > 0; line--)
          md += prefixes[rnd(prefixes.length)]! + rows[rnd(rows.length)]! + endings[rnd(endings.length)]!;
        return md;
      });
      const tables = countAsRemarkGfm(docs, (md) => reference(md).includes('<table>'));
      expect(tables).toBeGreaterThan(60);
    },
    CPU_BOUND_TIMEOUT,
  );
});
