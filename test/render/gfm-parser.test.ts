// The fast GFM parser must give exactly what remark-gfm gives, for every document it is chosen for.
import rehypeStringify from 'rehype-stringify';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { fastGfmParser, fullGfmParser, needsLiteralTokenizer, parseGfm } from '../../src/render/gfm-parser.ts';

const toHtml = unified().use(remarkRehype).use(rehypeStringify);
const html = (tree: ReturnType<typeof fullGfmParser.parse>) => toHtml.stringify(toHtml.runSync(tree));
const reference = (md: string) => html(fullGfmParser.parse(md));
const chosen = (md: string) => html(parseGfm(md, md));

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
];

describe('fast GFM parsing', () => {
  it.each(CASES)('matches remark-gfm: %j', (md) => {
    expect(chosen(md)).toBe(reference(md));
  });

  it('matches remark-gfm on random documents mixing URLs and markup', () => {
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const parts = [
      'https://', 'http://', 'www.', 'mailto:', 'xmpp:', '@', 'example', '.com', '.org', '/', 'a', 'b', '_', '*', '~', '(', ')',
      '[', ']', '`', '<', '>', '&', ';', '\\', '!', '?', '=', '#', '.', ',', ':', '-', '+', ' ', ' ', ' ', '\n', '\n\n', '"', "'", '|', '^', '%20',
    ];
    let compared = 0;
    for (let i = 0; i < 4000; i++) {
      let md = '';
      const len = 3 + rnd(25);
      for (let j = 0; j < len; j++) md += parts[rnd(parts.length)];
      expect(chosen(md), JSON.stringify(md)).toBe(reference(md));
      if (!needsLiteralTokenizer(md)) compared++;
    }
    expect(compared).toBeGreaterThan(500); // the fast path was really exercised
  });

  it('takes the fast path for plain prose with ordinary links', () => {
    expect(needsLiteralTokenizer('Read [the guide](https://example.com/guide) or www.example.org/docs today.')).toBe(false);
    expect(needsLiteralTokenizer('See https://example.com/a_b for more.')).toBe(true);
    expect(html(fastGfmParser.parse('Plain www.example.org/docs text.'))).toContain('<a href="http://www.example.org/docs">');
  });
});
