// HTML5 parsing for the checks (parse5, as browsers parse): element walks, attributes, text.
import { parse, parseFragment, serialize, type DefaultTreeAdapterMap } from 'parse5';

export type Node = DefaultTreeAdapterMap['node'];
export type Element = DefaultTreeAdapterMap['element'];
export type Document = DefaultTreeAdapterMap['document'];
export type Fragment = DefaultTreeAdapterMap['documentFragment'];
type Parent = Document | Fragment | Element;

export const parseDocument = (html: string): Document => parse(html, { sourceCodeLocationInfo: true });
export const parseHtmlFragment = (html: string): Fragment => parseFragment(html);
export { serialize };

export const isElement = (n: Node): n is Element => 'tagName' in n;
const childrenOf = (n: Node): Node[] =>
  'content' in n && (n as Element).tagName === 'template' ? [] : 'childNodes' in n ? (n as Parent).childNodes : [];

export function* elements(root: Node): Generator<Element> {
  for (const child of childrenOf(root)) {
    if (isElement(child)) {
      yield child;
      yield* elements(child);
    }
  }
}

export const attr = (el: Element, name: string): string | undefined => el.attrs.find((a) => a.name === name)?.value;

export function findChild(root: Node, tagName: string): Element | undefined {
  for (const el of elements(root)) if (el.tagName === tagName) return el;
  return undefined;
}

/** Elements whose text is not shown: scripts, styles, templates, noscript, hidden ones. */
const INVISIBLE = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'textarea']);

export function isHidden(el: Element): boolean {
  if (INVISIBLE.has(el.tagName) || attr(el, 'hidden') !== undefined || attr(el, 'aria-hidden') === 'true') return true;
  return /display\s*:\s*none|visibility\s*:\s*hidden/i.test(attr(el, 'style') ?? '');
}

/** Visible text nodes with their nearest enclosing <a>, if any. */
export function visibleText(
  root: Node,
  inLink: Element | null = null,
  out: { text: string; link: Element | null }[] = [],
): { text: string; link: Element | null }[] {
  for (const child of childrenOf(root)) {
    if (child.nodeName === '#text')
      out.push({ text: (child as DefaultTreeAdapterMap['textNode']).value, link: inLink });
    else if (isElement(child) && !isHidden(child)) visibleText(child, child.tagName === 'a' ? child : inLink, out);
  }
  return out;
}

export function textContent(root: Node): string {
  if (root.nodeName === '#text') return (root as DefaultTreeAdapterMap['textNode']).value;
  return childrenOf(root).map(textContent).join('');
}

/** Source ranges [start, end) of elements whose content is not markup on the page, and comments. */
export function inertRanges(doc: Document): [number, number][] {
  const ranges: [number, number][] = [];
  const walk = (n: Node) => {
    for (const child of 'childNodes' in n ? (n as Parent).childNodes : []) {
      const loc = (child as Element).sourceCodeLocation;
      if (child.nodeName === '#comment' && loc) ranges.push([loc.startOffset, loc.endOffset]);
      else if (isElement(child)) {
        if (['script', 'template', 'noscript', 'textarea', 'style', 'title', 'xmp'].includes(child.tagName) && loc)
          ranges.push([loc.startOffset, loc.endOffset]);
        else walk(child);
      }
    }
  };
  walk(doc);
  return ranges;
}
