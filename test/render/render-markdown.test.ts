// renderMarkdown beyond sanitizing: the excerpt rule, image resolution and problems, in-page
// link prefixes and localized footnote labels.
import { describe, expect, it, vi } from 'vitest';
import { EXCERPT_MAX_LENGTH, renderMarkdown, type RenderInput } from '../../src/render/render-markdown.ts';
import { assertInert, attr, elementsNamed } from '../helpers/assert-inert.ts';

const CDN_URL = 'https://cdn.example.test/assets/site/x.abc.png';
const resolveImage = (sitePath: string) => (sitePath === 'images/x.png' ? CDN_URL : undefined);

function render(markdown: string, options: Partial<RenderInput> = {}) {
  const out = renderMarkdown({
    markdown,
    lang: 'en',
    articleDir: 'articles/guides',
    bodyLine: 1,
    resolveImage,
    ...options,
  });
  assertInert(out.html);
  return out;
}

const excerpt = (markdown: string) => render(markdown).excerpt;
const srcs = (html: string) => elementsNamed(html, 'img').map((img) => attr(img, 'src'));
const hrefs = (html: string) => elementsNamed(html, 'a').map((a) => attr(a, 'href'));

describe('excerpt', () => {
  it('is the plain text of the first paragraph, markup removed', () => {
    expect(excerpt('First *para* with `code`, **bold** and a [link](https://e.example).\n\nSecond.')).toBe(
      'First para with code, bold and a link.',
    );
  });

  it('skips headings, code blocks, tight lists and image-only paragraphs', () => {
    expect(
      excerpt('# Title\n\n## Sub\n\n```\ncode\n```\n\n- a\n- b\n\n![pic](https://e.example/a.png)\n\nThe real start.'),
    ).toBe('The real start.');
  });

  it('reads a paragraph nested in a blockquote when it comes first', () => {
    expect(excerpt('> Quoted first.\n\nAfter.')).toBe('Quoted first.');
  });

  it('leaves footnote markers out', () => {
    expect(excerpt('A claim[^1] and another[^long-name].\n\n[^1]: One.\n[^long-name]: Two.')).toBe(
      'A claim and another.',
    );
  });

  it('collapses white space and line breaks', () => {
    expect(excerpt('one\ntwo   three\\\nfour')).toBe('one two three four');
  });

  it('never contains what the sanitizer removed', () => {
    expect(excerpt('Visible <script>alert(1)</script> text <span onclick="x()">kept</span>.')).toBe(
      'Visible text kept.',
    );
  });

  it('is empty when no paragraph has text', () => {
    expect(excerpt('# Only a heading')).toBe('');
    expect(excerpt('')).toBe('');
  });

  it(`keeps a paragraph of exactly ${EXCERPT_MAX_LENGTH} characters whole`, () => {
    const text = `${'abcd '.repeat(39)}abcde`;
    expect(text).toHaveLength(EXCERPT_MAX_LENGTH);
    expect(excerpt(text)).toBe(text);
  });

  it('counts characters, not UTF-16 units', () => {
    const text = '🎉'.repeat(EXCERPT_MAX_LENGTH);
    expect(excerpt(text)).toBe(text);
  });

  it('cuts a longer paragraph at a word and ends it with "…"', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const cut = excerpt(words);
    expect(cut.endsWith('…')).toBe(true);
    const head = cut.slice(0, -1);
    expect(Array.from(head).length).toBeLessThanOrEqual(EXCERPT_MAX_LENGTH);
    expect(words.startsWith(head)).toBe(true);
    // Cut between words, and as late as the limit allows.
    expect(words[head.length]).toBe(' ');
    expect(head.length + 1 + words.slice(head.length + 1).split(' ')[0]!.length).toBeGreaterThan(EXCERPT_MAX_LENGTH);
  });

  it('drops punctuation left dangling before the "…"', () => {
    const text = `${'a'.repeat(150)} ${'b'.repeat(40)}, ${'c'.repeat(30)}`;
    expect(excerpt(text)).toBe(`${'a'.repeat(150)} ${'b'.repeat(40)}…`);
  });

  it('cuts mid-word when the only space is too early', () => {
    const text = `a ${'x'.repeat(300)}`;
    expect(excerpt(text)).toBe(`a ${'x'.repeat(EXCERPT_MAX_LENGTH - 2)}…`);
  });
});

describe('images', () => {
  it('resolves a path relative to the article', () => {
    const out = render('![a](../../images/x.png)');
    expect(srcs(out.html)).toEqual([CDN_URL]);
    expect(out.images).toEqual(['images/x.png']);
    expect(out.problems).toEqual([]);
  });

  it('resolves a site-root path, a query string and percent-escapes', () => {
    const seen: string[] = [];
    const out = render('![a](/images/x.png?v=2#frag) ![b](../../images/my%20pic.png)', {
      resolveImage: (p) => (seen.push(p), `https://cdn.example.test/${p}`),
    });
    expect(seen).toEqual(['images/x.png', 'images/my pic.png']);
    expect(srcs(out.html)).toEqual([
      'https://cdn.example.test/images/x.png',
      'https://cdn.example.test/images/my pic.png',
    ]);
  });

  it('resolves raw <img> tags too', () => {
    expect(srcs(render('<img src="../../images/x.png" alt="raw">').html)).toEqual([CDN_URL]);
  });

  it('keeps absolute and protocol-relative images without asking the resolver', () => {
    const spy = vi.fn(resolveImage);
    const out = render('![a](https://example.com/a.png) ![b](//example.com/b.png)', { resolveImage: spy });
    expect(srcs(out.html)).toEqual(['https://example.com/a.png', '//example.com/b.png']);
    expect(spy).not.toHaveBeenCalled();
    expect(out.images).toEqual([]);
    expect(out.problems).toEqual([]);
  });

  it('reports a missing image at its line in the file and empties its src', () => {
    const out = render('Intro.\n\nText\n  and ![gone](../../images/missing.png)', { bodyLine: 10 });
    expect(srcs(out.html)).toEqual(['']);
    expect(out.images).toEqual(['images/missing.png']);
    expect(out.problems).toEqual([
      {
        line: 13,
        column: 7,
        code: 'CONTENT_IMAGE_MISSING',
        message: 'image "../../images/missing.png" does not exist (looked for images/missing.png)',
      },
    ]);
  });

  it('reports an image outside images/ and does not ask the resolver', () => {
    const spy = vi.fn(resolveImage);
    const out = render('\n![x](../../../etc/passwd)', { bodyLine: 4, resolveImage: spy });
    expect(srcs(out.html)).toEqual(['']);
    expect(spy).not.toHaveBeenCalled();
    expect(out.problems).toMatchObject([{ line: 5, column: 1, code: 'CONTENT_IMAGE_OUTSIDE' }]);
  });
});

describe('in-page links and ids', () => {
  it('prefixes "#anchor" links so they match the prefixed ids', () => {
    const out = render('<h2 id="setup">Setup</h2>\n\n[a](#setup) <a href="#setup">b</a>');
    expect(attr(elementsNamed(out.html, 'h2')[0]!, 'id')).toBe('user-content-setup');
    expect(hrefs(out.html)).toEqual(['#user-content-setup', '#user-content-setup']);
  });

  it('leaves links that are already prefixed, bare "#" and other URLs with fragments alone', () => {
    expect(hrefs(render('[a](#user-content-x) [b](#) [c](page.html#x) [d](https://e.example/#x)').html)).toEqual([
      '#user-content-x',
      '#',
      'page.html#x',
      'https://e.example/#x',
    ]);
  });
});

describe('footnote labels', () => {
  const labels = (lang: string) => {
    const { html } = render('Claim[^1].\n\n[^1]: Note.', { lang });
    const heading = elementsNamed(html, 'h2')[0]!;
    const back = elementsNamed(html, 'a').find((a) => attr(a, 'data-footnote-backref') !== undefined)!;
    return {
      label: heading.childNodes.map((n) => ('value' in n ? n.value : '')).join(''),
      back: attr(back, 'aria-label'),
    };
  };

  it.each([
    ['en', 'Footnotes', 'Back to reference'],
    ['fr', 'Notes', 'Retour à la référence'],
    ['fr-CA', 'Notes', 'Retour à la référence'],
    ['DE', 'Fußnoten', 'Zurück zum Verweis'],
    ['xx', 'Footnotes', 'Back to reference'],
  ])('%s', (lang, label, back) => {
    expect(labels(lang)).toEqual({ label, back });
  });

  it('keeps the label localized when the document also holds raw HTML', () => {
    const { html } = render('Claim[^1] <kbd>K</kbd>.\n\n[^1]: Note.', { lang: 'fr' });
    expect(html).toContain('>Notes</h2>');
  });
});
