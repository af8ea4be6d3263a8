// Bounds on how deeply a Markdown body nests. The unified pipeline walks trees recursively (a
// 10,000-deep block quote overflowed the stack) and the parser's cost grows with the depth of
// every line's containers, so nesting is checked in linear passes before the work it would blow up.
import type { Root } from 'mdast';

export interface DeepPlace {
  line: number;
  column: number;
}

// List items and paragraphs that HTML closes by itself: counting them as open would be wrong.
const SELF_CLOSING = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr',
  'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'colgroup', 'rt', 'rp',
]);

/**
 * The first line whose block containers (`>` quotes and list markers, list indentation counted
 * as one level per two columns) nest deeper than `limit`, or that has a run of more than `limit`
 * `*` or `_` (the parser pairs a run's delimiters in time that grows with the square of its
 * length, into emphasis as deep as half of it). Each block level is at least one level of the
 * tree, so a line found here is too deep there too. Code blocks and thematic breaks are not
 * looked into. Lines are 1-based within `markdown`.
 */
export function deepestBlockLine(markdown: string, limit: number): DeepPlace | null {
  let line = 1;
  let fence: string | null = null;
  for (let start = 0; start <= markdown.length; line++) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const text = markdown.slice(start, end);
    start = end + 1;
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence !== null) {
      if (opener && opener[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (opener) {
      fence = opener[1]!;
      continue;
    }
    const markers = containerMarkers(text);
    const indent = /^[ \t]*/.exec(text)![0].replace(/\t/g, '    ').length;
    if (markers + (markers > 0 ? Math.floor(indent / 2) : 0) > limit) return { line, column: 1 };
    if (markers === 0 && indent >= 4) continue; // indented code
    if (/^[ \t]*([*_])(?:[ \t]*\1)*[ \t]*$/.test(text)) continue; // a thematic break
    const run = longestDelimiterRun(text);
    if (run.length > limit) return { line, column: run.at + 1 };
  }
  return null;
}

/** `>` quotes and list markers at the start of a line. */
function containerMarkers(text: string): number {
  let i = 0;
  let markers = 0;
  const skipSpace = () => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  skipSpace();
  for (;;) {
    const c = text[i];
    if (c === '>') i++;
    else if ((c === '-' || c === '*' || c === '+') && (text[i + 1] === ' ' || text[i + 1] === '\t')) i++;
    else if (c !== undefined && c >= '0' && c <= '9') {
      let j = i;
      while (j - i < 9 && text[j] !== undefined && text[j]! >= '0' && text[j]! <= '9') j++;
      if ((text[j] === '.' || text[j] === ')') && (text[j + 1] === ' ' || text[j + 1] === '\t')) i = j + 1;
      else break;
    } else break;
    markers++;
    skipSpace();
  }
  return markers;
}

function longestDelimiterRun(text: string): { at: number; length: number } {
  let best = { at: 0, length: 0 };
  for (const m of text.matchAll(/\*+|_+/g)) if (m[0].length > best.length) best = { at: m.index, length: m[0].length };
  return best;
}

/**
 * The first node of the tree deeper than `limit`. Recursive, but never deeper than `limit`:
 * it stops at the first node past it (and allocates nothing on the way, this runs per render).
 */
export function deepestNode(tree: Root, limit: number): DeepPlace | null {
  type Node = { children?: Node[]; position?: { start: { line: number; column: number } } };
  const visit = (node: Node, depth: number): DeepPlace | null => {
    if (depth > limit) return node.position ? { line: node.position.start.line, column: node.position.start.column } : { line: 1, column: 1 };
    if (!node.children) return null;
    for (const child of node.children) {
      const found = visit(child, depth + 1);
      if (found) return found;
    }
    return null;
  };
  return visit(tree as Node, 0);
}

/**
 * Where raw HTML in the body (the `html` nodes, in order) opens more than `limit` elements that
 * are still open: HTML is parsed into a tree of its own after this check.
 */
export function deepestHtml(tree: Root, limit: number): DeepPlace | null {
  let depth = 0;
  const stack: Root['children'][number][] = [...tree.children].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'html') {
      for (const [, close, name, selfClose] of node.value.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g)) {
        if (SELF_CLOSING.has(name!.toLowerCase()) || selfClose) continue;
        depth = close ? Math.max(0, depth - 1) : depth + 1;
        if (depth > limit) return node.position ? { line: node.position.start.line, column: node.position.start.column } : { line: 1, column: 1 };
      }
    } else if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Root['children'][number]);
    }
  }
  return null;
}
