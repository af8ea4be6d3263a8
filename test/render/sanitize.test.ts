// Hostile input against the sanitizer, the project's security boundary. Every rendered output is
// re-parsed as a browser would and walked by assertInert; cases then check what must survive.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.ts';
import {
  allElements,
  assertInert,
  bodyOf,
  elementsNamed,
  inertViolations,
  parseHtml,
  textContent,
  type HtmlElement,
} from '../helpers/assert-inert.ts';

const render = (markdown: string): string =>
  renderMarkdown({ markdown, lang: 'en', articleDir: 'articles', bodyLine: 1, resolveImage: () => undefined }).html;

type Check = (html: string) => void;
interface Case {
  name: string;
  md: string;
  check?: Check;
}

const attrsOf = (el: HtmlElement): Record<string, string> =>
  Object.fromEntries(el.attrs.map((a) => [a.prefix ? `${a.prefix}:${a.name}` : a.name, a.value]));

/** The one element with this tag name. */
function single(html: string, tagName: string): HtmlElement {
  const found = elementsNamed(html, tagName);
  expect(found, `expected one <${tagName}> in:\n${html}`).toHaveLength(1);
  return found[0]!;
}

const textLacks =
  (...needles: string[]): Check =>
  (html) => {
    for (const needle of needles) expect(textContent(html)).not.toContain(needle);
  };
const textHas =
  (needle: string): Check =>
  (html) =>
    expect(textContent(html)).toContain(needle);
/** The one <tagName> carries exactly these attributes. */
const onlyAttrs =
  (tagName: string, attrs: Record<string, string>): Check =>
  (html) =>
    expect(attrsOf(single(html, tagName))).toEqual(attrs);
const none =
  (...tagNames: string[]): Check =>
  (html) => {
    for (const tagName of tagNames) expect(elementsNamed(html, tagName), `<${tagName}> in:\n${html}`).toHaveLength(0);
  };
const all =
  (...checks: Check[]): Check =>
  (html) =>
    checks.forEach((check) => check(html));
/** The link keeps its text and loses its target. */
const deadLink = (text: string): Check =>
  all(onlyAttrs('a', {}), (html) => expect(textContent(html).trim()).toBe(text));

function hasComment(html: string): boolean {
  const walk = (nodes: { nodeName: string; childNodes?: unknown[] }[]): boolean =>
    nodes.some((n) => n.nodeName === '#comment' || walk((n.childNodes ?? []) as typeof nodes));
  return walk(bodyOf(html).childNodes);
}

describe('assertInert itself', () => {
  // Guards the guard: every one of these must be reported, or the suite below proves nothing.
  it.each([
    '<script>alert(1)</script>',
    '<p><SCRIPT>alert(1)</SCRIPT></p>',
    '<img src="https://e.example/a.png" onerror="alert(1)">',
    '<p style="color:red">x</p>',
    '<a href=" java\tscript:alert(1)">x</a>',
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    '<a href="VBScript:x">x</a>',
    '<img src="data:image/png;base64,AAAA">',
    '<a href="file:///etc/passwd">x</a>',
    '<picture><source srcset="https://a.example/1.png 1x, javascript:alert(1) 2x"></picture>',
    '<svg><a xlink:href="https://a.example/">x</a></svg>',
    '<math><mi>x</mi></math>',
    '<input type="text">',
    '<input type="checkbox">',
    '<body onload="alert(1)">',
    '<template><p onclick="x()">t</p></template>',
    '<meta http-equiv="refresh" content="0">',
    '<form action="https://evil.example/"></form>',
    '<button formaction="javascript:alert(1)">b</button>',
  ])('reports %j', (html) => {
    expect(inertViolations(html)).not.toEqual([]);
  });

  it('accepts ordinary safe markup', () => {
    expect(
      inertViolations(
        '<p><a href="https://e.example/?q=javascript:x">x</a> <img src="/a.png" alt="data:"> <input type="checkbox" disabled checked></p>',
      ),
    ).toEqual([]);
  });
});

describe('<script> in every disguise', () => {
  const cases: Case[] = [
    { name: 'lower case', md: '<script>alert(1)</script>', check: textLacks('alert') },
    { name: 'upper case', md: '<SCRIPT>alert(1)</SCRIPT>', check: textLacks('alert') },
    { name: 'mixed case', md: '<ScRiPt>alert(1)</sCrIpT>', check: textLacks('alert') },
    { name: 'with src', md: '<script src="https://evil.example/x.js"></script>' },
    {
      name: '<script/x> inside an HTML block',
      md: '<div>\n<script/x>alert(1)</script>\n</div>',
      check: all(textLacks('alert'), (h) => single(h, 'div')),
    },
    // CommonMark does not read `<script/x>` as a tag, so it is shown as text, never parsed as HTML.
    { name: '<script/x> inside a paragraph', md: 'a <script/x>alert(1)</script>', check: textHas('<script/x>') },
    { name: 'unclosed', md: '<script>alert(1)', check: textLacks('alert') },
    { name: 'unclosed, swallowing the rest', md: '<script>\nalert(1)\n\n# Heading after', check: textLacks('alert') },
    {
      name: 'in a table cell',
      md: '| a |\n|---|\n| <script>alert(1)</script> |',
      check: all(textLacks('alert'), (h) => expect(elementsNamed(h, 'td')).toHaveLength(1)),
    },
    {
      name: 'in a list item',
      md: '- <script>alert(1)</script>\n- b',
      check: all(textLacks('alert'), (h) => expect(elementsNamed(h, 'li')).toHaveLength(2)),
    },
    { name: 'in a blockquote', md: '> <script>alert(1)</script>', check: textLacks('alert') },
    { name: 'in emphasis', md: '*<script>alert(1)</script>*', check: textLacks('alert') },
    {
      name: 'in a heading',
      md: '# Title <script>alert(1)</script>',
      check: all(textLacks('alert'), (h) => expect(textContent(h)).toContain('Title')),
    },
    { name: 'in a footnote', md: 'a[^1]\n\n[^1]: <script>alert(1)</script> note', check: textLacks('alert') },
    {
      name: 'in a link title (stays an attribute string)',
      md: '[x](https://e.example "<script>alert(1)</script>")',
      check: onlyAttrs('a', { href: 'https://e.example', title: '<script>alert(1)</script>' }),
    },
    { name: 'split across lines', md: '<script\n>alert(1)</script\n>', check: textLacks('alert') },
    {
      name: 'attributes on several lines',
      md: '<script\ntype="text/javascript"\n>\nalert(1)\n</script>',
      check: textLacks('alert'),
    },
    {
      name: 'nested to survive one pass of stripping',
      md: '<scr<script>ipt>alert(1)</script>',
      check: textLacks('alert', 'ipt>'),
    },
    { name: 'inside <svg>', md: '<svg><script>alert(1)</script></svg>', check: textLacks('alert') },
  ];
  it.each(cases)('$name', ({ md, check }) => {
    const html = render(md);
    assertInert(html);
    check?.(html);
  });
});

describe('dangerous link and image URLs lose their target', () => {
  const cases: Case[] = [
    { name: 'javascript:', md: '[x](javascript:alert(1))', check: deadLink('x') },
    { name: 'mixed-case scheme', md: '[x](JaVaScRiPt:alert(1))', check: deadLink('x') },
    { name: 'decimal entity', md: '[x](&#106;avascript:alert(1))', check: deadLink('x') },
    { name: 'hex entity', md: '[x](&#x6A;avascript:alert(1))', check: deadLink('x') },
    { name: '&colon; entity', md: '[x](javascript&colon;alert(1))', check: deadLink('x') },
    { name: 'padded destination', md: '[x]( javascript:alert(1) )', check: deadLink('x') },
    { name: 'pointy-bracket destination', md: '[x](<javascript:alert(1)>)', check: deadLink('x') },
    { name: 'scheme with "//" comment', md: '[x](javascript://%0aalert(1))', check: deadLink('x') },
    {
      name: 'reference-style definition',
      md: '[x][r] and [r]\n\n[r]: javascript:alert(1)',
      check: (h) => expect(elementsNamed(h, 'a').map(attrsOf)).toEqual([{}, {}]),
    },
    { name: 'vbscript:', md: '[x](vbscript:msgbox(1))', check: deadLink('x') },
    { name: 'data:text/html', md: '[x](data:text/html,<script>alert(1)</script>)', check: deadLink('x') },
    { name: 'file:', md: '[x](file:///etc/passwd)', check: deadLink('x') },
    { name: 'autolink', md: '<javascript:alert(1)>', check: deadLink('javascript:alert(1)') },
    // A tab cannot appear in a destination, so this never becomes a link at all.
    { name: 'tab inside the scheme', md: '[x](java\tscript:alert(1))', check: all(none('a'), textHas('[x](java')) },
    { name: 'raw <a>, leading space', md: '<a href=" javascript:alert(1)">x</a>', check: deadLink('x') },
    { name: 'raw <a>, tab entity in the scheme', md: '<a href="java&#9;script:alert(1)">x</a>', check: deadLink('x') },
    { name: 'raw <a>, newline in the scheme', md: '<a href="java\nscript:alert(1)">x</a>', check: deadLink('x') },
    {
      name: 'raw <a>, padded entities without semicolons',
      md: '<a href="&#0000106avascript&#58;alert(1)">x</a>',
      check: deadLink('x'),
    },
    { name: 'raw <a>, control character first', md: '<a href="\u0001javascript:alert(1)">x</a>', check: deadLink('x') },
    { name: 'raw <a>, &colon;', md: '<a href="javascript&colon;alert(1)">x</a>', check: deadLink('x') },
    { name: 'raw <a>, upper case', md: '<a href="JAVASCRIPT:alert(1)">x</a>', check: deadLink('x') },
    { name: 'image with javascript:', md: '![x](javascript:alert(1))', check: onlyAttrs('img', { alt: 'x' }) },
    { name: 'image with data:', md: '![x](data:image/png;base64,AAAA)', check: onlyAttrs('img', { alt: 'x' }) },
    {
      name: 'raw <img src="data:…">',
      md: '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
      check: onlyAttrs('img', {}),
    },
    {
      name: 'linked image keeps the image, loses the link',
      md: '[![i](https://e.example/a.png)](javascript:alert(1))',
      check: all(onlyAttrs('a', {}), onlyAttrs('img', { src: 'https://e.example/a.png', alt: 'i' })),
    },
    {
      name: '<picture><source srcset> with a javascript: candidate',
      md: '<picture><source srcset="javascript:alert(1) 1x, https://a.example/x.png 2x"><img src="https://a.example/y.png"></picture>',
      check: all(onlyAttrs('source', {}), onlyAttrs('img', { src: 'https://a.example/y.png' })),
    },
    {
      name: '<img srcset>',
      md: '<img src="https://e.example/a.png" srcset="javascript:alert(1) 2x">',
      check: onlyAttrs('img', { src: 'https://e.example/a.png' }),
    },
    {
      name: '<blockquote cite>',
      md: '<blockquote cite="javascript:alert(1)">q</blockquote>',
      check: onlyAttrs('blockquote', {}),
    },
    { name: '<q cite>', md: '<q cite="javascript:alert(1)">q</q>', check: onlyAttrs('q', {}) },
    {
      name: '<img longdesc>',
      md: '<img longdesc="javascript:alert(1)" src="https://e.example/a.png">',
      check: onlyAttrs('img', { src: 'https://e.example/a.png' }),
    },
    {
      name: '<td background>',
      md: '<table><tr><td background="javascript:alert(1)">x</td></tr></table>',
      check: onlyAttrs('td', {}),
    },
    {
      name: '<map><area href>',
      md: '<map name="m"><area href="javascript:alert(1)" shape="rect"></map>',
      check: none('map', 'area'),
    },
  ];
  it.each(cases)('$name', ({ md, check }) => {
    const html = render(md);
    assertInert(html);
    check?.(html);
  });
});

describe('<source srcset>: every candidate is checked, not only the first', () => {
  const srcsetOf = (value: string) => {
    const html = render(`<picture><source srcset="${value}"></picture>`);
    assertInert(html);
    return attrsOf(single(html, 'source')).srcset;
  };

  it.each([
    'a/b.png 1x, javascript:alert(1) 2x',
    'https://a.example/1.png 1x, data:image/svg+xml,x 2x',
    'data:image/png;base64,AAAA 1x',
    'JAVASCRIPT:alert(1)',
    '&#1;javascript:alert(1)',
    'java&#10;script:alert(1) 1x',
    'x.png 1x, vbscript:x 2x',
  ])('drops %j', (value) => {
    expect(srcsetOf(value)).toBeUndefined();
  });

  it.each([
    'https://a.example/1.png 1x, https://a.example/2.png 2x',
    'images/a.png 480w, images/b.png 800w',
    'x.png, https://a.example/2.png 1.5x',
  ])('keeps %j', (value) => {
    expect(srcsetOf(value)).toBe(value);
  });
});

describe('handlers, embeds, forms and page-level elements are removed', () => {
  const cases: Case[] = [
    { name: '<img src=x onerror>', md: '<img src=x onerror=alert(1)>', check: onlyAttrs('img', { src: '' }) },
    {
      name: 'https <img> keeps its src, loses onerror',
      md: '<img src="https://example.com/a.png" onerror="alert(1)">',
      check: onlyAttrs('img', { src: 'https://example.com/a.png' }),
    },
    { name: '<image> (parsed as <img>)', md: '<image src=x onerror=alert(1)>', check: onlyAttrs('img', { src: '' }) },
    {
      name: '<a onclick>',
      md: '<a href="https://example.com" onclick="steal()">t</a>',
      check: onlyAttrs('a', { href: 'https://example.com' }),
    },
    {
      name: '<a target=_blank>',
      md: '<a href="https://example.com" target="_blank">t</a>',
      check: onlyAttrs('a', { href: 'https://example.com' }),
    },
    {
      name: '<a ping download>',
      md: '<a href="https://example.com" ping="https://evil.example" download>t</a>',
      check: onlyAttrs('a', { href: 'https://example.com' }),
    },
    { name: '<svg onload>', md: '<svg onload=alert(1)>' },
    {
      name: '<math><mi xlink:href>',
      md: '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
      check: none('mi'),
    },
    {
      name: '<svg><a xlink:href>',
      md: '<svg><a xlink:href="javascript:alert(1)"><text>t</text></a></svg>',
      check: none('a'),
    },
    { name: '<iframe>', md: '<iframe src="https://evil.example/"></iframe>' },
    { name: '<iframe srcdoc>', md: '<iframe srcdoc="<script>alert(1)</script>"></iframe>' },
    {
      name: '<object>',
      md: '<object data="javascript:alert(1)"><param name=x value=y></object>after',
      check: all(none('param'), textHas('after')),
    },
    { name: '<embed>', md: '<embed src="https://evil.example/x.swf">' },
    {
      name: '<form action> with an <input>',
      md: '<form action="https://evil.example/"><input name=q></form>',
      check: none('input'),
    },
    {
      name: '<input> becomes an inert checkbox',
      md: '<input type=text onfocus=alert(1) autofocus>',
      check: onlyAttrs('input', { disabled: '', type: 'checkbox' }),
    },
    {
      name: '<input type=image formaction>',
      md: '<input type="image" src="https://e.example/x" formaction="javascript:alert(1)">',
      check: onlyAttrs('input', { disabled: '', type: 'checkbox' }),
    },
    { name: '<button formaction>', md: '<button formaction="javascript:alert(1)">go</button>', check: textLacks('go') },
    { name: '<isindex>', md: '<isindex action="javascript:alert(1)" type=image>', check: none('isindex') },
    { name: '<meta http-equiv=refresh>', md: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">' },
    {
      name: '<base href>',
      md: '<base href="https://evil.example/">\n\n[x](a.html)',
      check: onlyAttrs('a', { href: 'a.html' }),
    },
    { name: '<link rel=stylesheet>', md: '<link rel=stylesheet href="https://evil.example/x.css">' },
    { name: '<body onload>', md: '<body onload=alert(1)>' },
    {
      name: '<style> block',
      md: '<style>body{width:expression(alert(1))}</style>\n\ntext',
      check: all(textLacks('expression'), textHas('text')),
    },
    {
      name: '<style> with @import',
      md: '<style>@import "https://evil.example/x.css";</style>',
      check: textLacks('@import'),
    },
    {
      name: 'style attribute (CSS expression)',
      md: '<p style="width:expression(alert(1))">x</p>',
      check: onlyAttrs('p', {}),
    },
    {
      name: 'style attribute with url(javascript:)',
      md: 'Text <span style="background:url(javascript:alert(1))">s</span>',
      check: onlyAttrs('span', {}),
    },
    {
      name: '<details ontoggle>',
      md: '<details open ontoggle=alert(1)><summary>s</summary>b</details>',
      check: all(onlyAttrs('details', { open: '' }), (h) => single(h, 'summary')),
    },
    {
      name: '<video><source onerror>',
      md: '<video><source onerror=alert(1)></video>',
      check: all(none('video'), onlyAttrs('source', {})),
    },
    {
      name: '<audio autoplay onplay>',
      md: '<audio src="https://e.example/a.mp3" autoplay onplay=alert(1)></audio>',
      check: none('audio'),
    },
    {
      name: '<marquee onstart> is unwrapped',
      md: '<marquee onstart=alert(1)>m</marquee>',
      check: all(none('marquee'), textHas('m')),
    },
    { name: 'data-* and class attributes', md: '<div data-x="1" class="evil">d</div>', check: onlyAttrs('div', {}) },
  ];
  it.each(cases)('$name', ({ md, check }) => {
    const html = render(md);
    assertInert(html);
    check?.(html);
  });
});

describe('parser confusion and mutation XSS', () => {
  const cases: Case[] = [
    {
      // Payload hidden in an attribute that a scripting-enabled parser reads as markup inside <noscript>.
      name: '<noscript><p title="</noscript><img onerror>">',
      md: '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
      check: none('img'),
    },
    { name: '<noscript><img onerror>', md: '<noscript><img src=x onerror=alert(1)></noscript>', check: none('img') },
    {
      name: '<math><mtext><table><mglyph><style> namespace confusion',
      md: '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img&Tab;src=1&Tab;onerror=alert(1)&gt;">',
    },
    { name: '<svg><p><style> breakout', md: '<svg><p><style><img src=x onerror=alert(1)></style>', check: none('img') },
    { name: 'comment holding a payload', md: '<!-- <script>alert(1)</script> -->', check: (h) => expect(h).toBe('') },
    { name: '<!--> closes early', md: '<!--><script>alert(1)</script>-->', check: textLacks('alert') },
    { name: '<!---> closes early', md: '<!---><script>alert(1)</script>-->', check: textLacks('alert') },
    { name: 'CDATA (a bogus comment in HTML)', md: '<![CDATA[<script>alert(1)</script>]]>' },
    {
      name: '<template>',
      md: '<template><script>alert(1)</script><img src=x onerror=alert(1)></template>',
      check: none('img'),
    },
    { name: 'processing instruction', md: '<?php echo 1 ?>', check: (h) => expect(h).toBe('') },
    { name: 'doctype', md: '<!DOCTYPE html>', check: (h) => expect(h).toBe('') },
    {
      name: 'attributes on several lines',
      md: '<a\nhref="javascript:alert(1)"\nonclick="alert(1)">x</a>',
      check: deadLink('x'),
    },
    {
      name: 'handler split around "="',
      md: '<img\nsrc="https://e.example/a.png"\nonerror\n="alert(1)">',
      check: onlyAttrs('img', { src: 'https://e.example/a.png' }),
    },
    {
      name: 'quote injection in a link title',
      md: '[x](https://e.example "a\\" onmouseover=\\"alert(1)")',
      check: onlyAttrs('a', { href: 'https://e.example', title: 'a" onmouseover="alert(1)' }),
    },
    {
      name: 'markup in image alt text stays an attribute string',
      md: '![<img src=x onerror=alert(1)>](https://e.example/a.png)',
      check: onlyAttrs('img', { src: 'https://e.example/a.png', alt: '<img src=x onerror=alert(1)>' }),
    },
    {
      name: 'markup in a code fence info string',
      md: '```"><img src=x onerror=alert(1)>\nx\n```',
      check: all(none('img'), (h) => expect(attrsOf(single(h, 'code')).class).toMatch(/^language-/)),
    },
    { name: '<textarea>', md: '<textarea><script>alert(1)</script></textarea>', check: textLacks('alert') },
    { name: '<xmp>', md: '<xmp><script>alert(1)</script></xmp>', check: textLacks('alert') },
    { name: '<plaintext>', md: '<plaintext><script>alert(1)</script>', check: textLacks('alert') },
    { name: '<title>', md: '<title><script>alert(1)</script></title>', check: textLacks('alert') },
    { name: '<select>', md: '<select><option>a</option></select>', check: none('option') },
  ];
  it.each(cases)('$name', ({ md, check }) => {
    const html = render(md);
    assertInert(html);
    check?.(html);
  });

  it('drops HTML comments', () => {
    const html = render('<p>a<!-- secret --></p>\n\nb <!-- inline --> c');
    expect(hasComment(html)).toBe(false);
    expect(html).not.toContain('secret');
  });
});

describe('content of stripped elements does not survive as text', () => {
  it.each([
    ['<script>', '<script>var PAYLOAD = 1;</script>'],
    ['<style>', '<style>.PAYLOAD { color: red }</style>'],
    ['<iframe>', '<iframe>PAYLOAD</iframe>'],
    ['<noscript>', '<noscript>PAYLOAD</noscript>'],
    ['<template>', '<template>PAYLOAD</template>'],
    ['<svg>', '<svg><text>PAYLOAD</text></svg>'],
    ['<math>', '<math><mi>PAYLOAD</mi></math>'],
    ['<textarea>', '<textarea>PAYLOAD</textarea>'],
    ['<button>', '<button>PAYLOAD</button>'],
    ['<object> fallback', '<object data="x">PAYLOAD</object>'],
    ['<title>', '<title>PAYLOAD</title>'],
    ['<script> inside inline text', 'before <script>PAYLOAD</script> after'],
  ])('%s', (_name, md) => {
    const html = render(md);
    assertInert(html);
    expect(html).not.toContain('PAYLOAD');
  });
});

describe('DOM clobbering: ids and names get the user-content- prefix', () => {
  it.each([
    ['<p id="x">a</p>', 'p', { id: 'user-content-x' }],
    ['<p name="y">a</p>', 'p', { name: 'user-content-y' }],
    [
      '<img name="getElementById" src="https://e.example/a.png">',
      'img',
      { name: 'user-content-getElementById', src: 'https://e.example/a.png' },
    ],
    [
      '<a id="location" href="https://e.example">x</a>',
      'a',
      { id: 'user-content-location', href: 'https://e.example' },
    ],
    [
      '<a aria-describedby="x" href="https://e.example">x</a>',
      'a',
      { 'aria-describedby': 'user-content-x', href: 'https://e.example' },
    ],
    ['<div id="__proto__">d</div>', 'div', { id: 'user-content-__proto__' }],
    // Already prefixed ids are prefixed again: nothing an author writes can name a page id.
    ['<div id="user-content-x">d</div>', 'div', { id: 'user-content-user-content-x' }],
  ] as const)('%s', (md, tagName, attrs) => {
    const html = render(md);
    assertInert(html);
    expect(attrsOf(single(html, tagName))).toEqual(attrs);
  });

  it('leaves no id or name without the prefix anywhere, footnotes included', () => {
    const html = render('<h2 id="top">T</h2>\n\nText[^note] <a name="n">n</a>\n\n[^note]: The note.');
    const named = allElements(bodyOf(html)).flatMap((el) =>
      el.attrs.filter((a) => a.name === 'id' || a.name === 'name'),
    );
    expect(named.length).toBeGreaterThanOrEqual(5);
    for (const { value } of named) expect(value).toMatch(/^user-content-/);
  });
});

describe('code stays inert, escaped text', () => {
  it.each([
    ['inline code', '`<script>alert(1)</script>`'],
    ['fenced code', '```html\n<script>alert(1)</script>\n```'],
    ['indented code', '    <script>alert(1)</script>'],
    ['fenced code in a list', '- item\n\n  ```\n  <script>alert(1)</script>\n  ```'],
  ])('%s', (_name, md) => {
    const html = render(md);
    assertInert(html);
    expect(textContent(html)).toContain('<script>alert(1)</script>');
    expect(single(html, 'code').childNodes.every((n) => n.nodeName === '#text')).toBe(true);
  });

  it('keeps an <img onerror> in code as text', () => {
    const html = render('`<img src=x onerror=alert(1)>`');
    assertInert(html);
    none('img')(html);
    expect(textContent(html)).toBe('<img src=x onerror=alert(1)>');
  });

  it('keeps the language class of a fenced block', () => {
    expect(attrsOf(single(render('```ts\nlet a = 1;\n```'), 'code'))).toEqual({ class: 'language-ts' });
  });
});

describe('what safe input keeps', () => {
  it('task list checkboxes, disabled', () => {
    const html = render('- [x] done\n- [ ] todo');
    assertInert(html);
    const boxes = elementsNamed(html, 'input').map(attrsOf);
    expect(boxes).toEqual([
      { type: 'checkbox', checked: '', disabled: '' },
      { type: 'checkbox', disabled: '' },
    ]);
    expect(attrsOf(single(html, 'ul'))).toEqual({ class: 'contains-task-list' });
    expect(elementsNamed(html, 'li').map((li) => attrsOf(li).class)).toEqual(['task-list-item', 'task-list-item']);
  });

  it('footnotes, with links and ids that match', () => {
    const html = render('Claim[^1].\n\n[^1]: Source.');
    assertInert(html);
    const [ref, back] = elementsNamed(html, 'a').map(attrsOf);
    expect(ref).toMatchObject({
      href: '#user-content-fn-1',
      id: 'user-content-fnref-1',
      'aria-describedby': 'user-content-footnote-label',
    });
    expect(back).toMatchObject({
      href: '#user-content-fnref-1',
      class: 'data-footnote-backref',
      'aria-label': 'Back to reference',
    });
    expect(attrsOf(single(html, 'section'))).toMatchObject({ class: 'footnotes' });
    expect(attrsOf(single(html, 'h2'))).toEqual({ class: 'sr-only', id: 'user-content-footnote-label' });
    expect(elementsNamed(html, 'li').map((li) => attrsOf(li).id)).toEqual(['user-content-fn-1']);
  });

  it('tables, with alignment', () => {
    const html = render('| l | r |\n|:--|--:|\n| 1 | 2 |');
    assertInert(html);
    expect(elementsNamed(html, 'th').map(attrsOf)).toEqual([{ align: 'left' }, { align: 'right' }]);
    expect(elementsNamed(html, 'td').map(attrsOf)).toEqual([{ align: 'left' }, { align: 'right' }]);
    expect(textContent(html).replace(/\s+/g, '')).toBe('lr12');
    for (const tag of ['table', 'thead', 'tbody']) single(html, tag);
  });

  it('strikethrough', () => {
    expect(textContent(render('~~gone~~'))).toBe('gone');
    single(render('~~gone~~'), 'del');
  });

  it.each([
    ['kbd', '<kbd>Ctrl</kbd>'],
    ['sup', 'E = mc<sup>2</sup>'],
    ['sub', 'H<sub>2</sub>O'],
    ['ins', '<ins>added</ins>'],
    ['del', '<del>removed</del>'],
    ['s', '<s>struck</s>'],
    ['q', '<q cite="https://e.example/src">quoted</q>'],
    ['var', '<var>x</var>'],
    ['samp', '<samp>out</samp>'],
    ['ruby', '<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>'],
    ['dl', '<dl><dt>term</dt><dd>definition</dd></dl>'],
    ['span', 'a <span>span</span>'],
    ['br', 'a<br>b'],
  ])('inline HTML <%s>', (tagName, md) => {
    const html = render(md);
    assertInert(html);
    single(html, tagName);
  });

  it('<q cite> keeps an https cite', () => {
    expect(attrsOf(single(render('<q cite="https://e.example/src">q</q>'), 'q'))).toEqual({
      cite: 'https://e.example/src',
    });
  });

  it('<details><summary>, with its open attribute', () => {
    const html = render('<details open>\n<summary>More</summary>\n\nHidden *text*.\n\n</details>');
    assertInert(html);
    expect(attrsOf(single(html, 'details'))).toEqual({ open: '' });
    expect(single(html, 'summary').childNodes.map((n) => ('value' in n ? n.value : ''))).toEqual(['More']);
    single(html, 'em');
  });

  it.each([
    ['mark', '<mark>highlighted</mark>', 'highlighted'],
    ['abbr', '<abbr title="HyperText Markup Language">HTML</abbr>', 'HTML'],
    ['font', '<font color="red">red</font>', 'red'],
  ])('<%s> is not on the allow-list: unwrapped, its text kept', (tagName, md, text) => {
    const html = render(md);
    assertInert(html);
    none(tagName)(html);
    expect(textContent(html)).toBe(text);
  });

  it('dir and lang attributes', () => {
    expect(attrsOf(single(render('<p dir="rtl" lang="ar">مرحبا</p>'), 'p'))).toEqual({ dir: 'rtl', lang: 'ar' });
  });

  it.each([
    [
      'https link with query and fragment',
      '[x](https://example.com/a?b=1&c=2#d)',
      'a',
      { href: 'https://example.com/a?b=1&c=2#d' },
    ],
    ['http link with a title', '[x](http://example.com/ "T")', 'a', { href: 'http://example.com/', title: 'T' }],
    [
      'https image with alt and title',
      '![alt](https://example.com/a.png "t")',
      'img',
      { src: 'https://example.com/a.png', alt: 'alt', title: 't' },
    ],
    ['relative link', '[x](../other/page/)', 'a', { href: '../other/page/' }],
    ['root-relative link', '[x](/about)', 'a', { href: '/about' }],
    ['in-page link, prefixed', '[x](#setup)', 'a', { href: '#user-content-setup' }],
    ['mailto:', '[m](mailto:ada@example.com?subject=Hi)', 'a', { href: 'mailto:ada@example.com?subject=Hi' }],
    ['tel:', '[t](tel:+15551234)', 'a', { href: 'tel:+15551234' }],
    ['autolink', '<https://example.com/x>', 'a', { href: 'https://example.com/x' }],
    ['bare e-mail', 'ada@example.com', 'a', { href: 'mailto:ada@example.com' }],
    ['raw <a> with https', '<a href="https://example.com/">x</a>', 'a', { href: 'https://example.com/' }],
    [
      'path containing "javascript:" after a slash',
      '[x](/wiki/javascript:void)',
      'a',
      { href: '/wiki/javascript:void' },
    ],
  ] as const)('%s', (_name, md, tagName, attrs) => {
    const html = render(md);
    assertInert(html);
    expect(attrsOf(single(html, tagName))).toEqual(attrs);
  });

  it('the document parses back without any forbidden node', () => {
    // Whole-document sanity: nothing from the fragment leaks into <head>.
    const doc = parseHtml(render('<meta charset="x"><link rel="icon" href="x"><title>t</title>\n\ntext'));
    const head = allElements(doc).find((el) => el.tagName === 'head')!;
    expect(head.childNodes).toHaveLength(0);
  });
});
