// Structural checks on rendered HTML. The output is parsed the way a browser would parse it
// (parse5, scripting enabled, as the body of a page), so markup that only becomes dangerous
// after re-parsing is judged by what the browser builds, not by how the string looks.
import { parse, type DefaultTreeAdapterTypes as P } from 'parse5';
import { expect } from 'vitest';

export type HtmlElement = P.Element;

/** Elements that run code, load documents or styles, submit data, or change how the page parses. */
const FORBIDDEN_ELEMENTS = new Set([
  'script',
  'style',
  'iframe',
  'object',
  'embed',
  'applet',
  'form',
  'button',
  'textarea',
  'select',
  'svg',
  'math',
  'base',
  'meta',
  'link',
  'frame',
  'frameset',
  'template',
  'noscript',
  'portal',
]);

/** Attributes whose value the browser may load or navigate to. */
const URL_ATTRIBUTES = new Set([
  'href',
  'xlink:href',
  'src',
  'action',
  'formaction',
  'data',
  'poster',
  'background',
  'cite',
  'longdesc',
  'ping',
]);

const DANGEROUS_SCHEME = /^(?:javascript|vbscript|data|file):/;

/** The way URL parsers read a scheme: surrounding space and ASCII tabs/newlines/controls do not count. */
const normalizeUrl = (value: string) =>
  value
    .trim()
    .replace(/[\u0000-\u0020\u007f]/g, '')
    .toLowerCase();

/** The whole page the fragment lands in; `<body onload>` and the like merge into it, so check it all. */
export function parseHtml(html: string): P.Document {
  return parse(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`);
}

/** The page's body element. */
export function bodyOf(html: string): HtmlElement {
  const found = allElements(parseHtml(html)).find((el) => el.tagName === 'body');
  if (!found) throw new Error('parse5 built no body');
  return found;
}

/** Every element under `root`, template contents included, in document order. */
export function allElements(root: P.ParentNode): HtmlElement[] {
  const out: HtmlElement[] = [];
  const walk = (node: P.ParentNode) => {
    const children = node.nodeName === 'template' ? (node as P.Template).content.childNodes : node.childNodes;
    for (const child of children) {
      if (!('tagName' in child)) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** Elements of the rendered fragment with the given tag name. */
export function elementsNamed(html: string, tagName: string): HtmlElement[] {
  return allElements(bodyOf(html)).filter((el) => el.tagName === tagName);
}

export function attr(el: HtmlElement, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name && !a.prefix)?.value;
}

/** Text the reader sees (and a script could not run): every text node under the body. */
export function textContent(html: string): string {
  const collect = (node: P.ParentNode): string =>
    node.childNodes
      .map((c) => (c.nodeName === '#text' ? (c as P.TextNode).value : 'childNodes' in c ? collect(c) : ''))
      .join('');
  return collect(bodyOf(html));
}

/** Every reason the HTML is not inert; empty when it is. */
export function inertViolations(html: string): string[] {
  const problems: string[] = [];
  for (const el of allElements(parseHtml(html))) {
    const name = el.tagName;
    if (FORBIDDEN_ELEMENTS.has(name)) problems.push(`<${name}> element`);
    if (name === 'input' && (attr(el, 'type')?.toLowerCase() !== 'checkbox' || attr(el, 'disabled') === undefined)) {
      problems.push('<input> that is not a disabled checkbox');
    }
    for (const { name: attrName, prefix, value } of el.attrs) {
      const full = prefix ? `${prefix}:${attrName}` : attrName;
      const lower = attrName.toLowerCase();
      if (lower.startsWith('on')) problems.push(`<${name} ${full}> event handler`);
      if (lower === 'style') problems.push(`<${name} style> attribute`);
      // A srcset is a list of candidates; any of them may be the bad one.
      const urls = lower === 'srcset' ? value.split(',') : URL_ATTRIBUTES.has(lower) ? [value] : [];
      for (const url of urls) {
        if (DANGEROUS_SCHEME.test(normalizeUrl(url))) problems.push(`<${name} ${full}="${value}"> dangerous URL`);
      }
    }
  }
  return problems;
}

/** Fails the test, listing every violation, unless the HTML is inert. */
export function assertInert(html: string): void {
  expect(inertViolations(html), `not inert:\n${html}`).toEqual([]);
}
