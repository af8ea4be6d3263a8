// Rehype plugin: the sanitizer prefixes ids with "user-content-" so a document cannot clobber
// globals of the page it lands on; in-page links ("#fn-1", "#setup") get the same prefix first.
import type { Element, Root } from 'hast';
import { visit } from 'unist-util-visit';

export const ID_PREFIX = 'user-content-';

export function rehypeFragmentLinks() {
  return function prefixFragmentLinks(tree: Root): void {
    visit(tree, 'element', (node: Element) => {
      const href = node.properties.href;
      if (node.tagName !== 'a' || typeof href !== 'string' || !href.startsWith('#') || href.length < 2) return;
      if (!href.startsWith(`#${ID_PREFIX}`)) node.properties.href = `#${ID_PREFIX}${href.slice(1)}`;
    });
  };
}
