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
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'option',
  'optgroup',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'rt',
  'rp',
]);

/**
 * The first line whose block containers (`>` quotes and list markers, list indentation counted
 * as one level per two columns) nest deeper than `limit`, or that has a run of more than `limit`
 * `*` or `_` (the parser pairs a run's delimiters in time that grows with the square of its
 * length, into emphasis as deep as half of it). Each block level is at least one level of the
 * tree, so a line found here is too deep there too. Code blocks and thematic breaks are not
 * looked into. Lines are 1-based within `markdown`.
 *
 * It runs on every render, so it reads character codes in place rather than slicing lines and
 * matching expressions (test/render/nesting.test.ts holds it to a plain version of the rule).
 */
export function deepestBlockLine(markdown: string, limit: number): DeepPlace | null {
  let line = 1;
  let fenceCode = 0; // the open fence's character (` or ~), 0 outside a fence
  let fenceLength = 0;
  for (let start = 0; start <= markdown.length; line++) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const lineStart = start;
    start = end + 1;
    // A fence opener or closer: up to three spaces, then three or more of one fence character.
    let at = lineStart;
    while (at < end && at - lineStart < 3 && markdown.charCodeAt(at) === SPACE) at++;
    const first = at < end ? markdown.charCodeAt(at) : 0;
    let run = 0;
    if (first === BACKTICK || first === TILDE) while (at + run < end && markdown.charCodeAt(at + run) === first) run++;
    const opener = run >= 3;
    if (fenceCode !== 0) {
      if (opener && first === fenceCode && run >= fenceLength) fenceCode = 0;
      continue;
    }
    if (opener) {
      fenceCode = first;
      fenceLength = run;
      continue;
    }
    // At most two levels per character (a tab of indentation counts two): a short line cannot
    // nest past the limit, nor hold a longer run.
    if (2 * (end - lineStart) <= limit) continue;
    const markers = containerMarkers(markdown, lineStart, end);
    let indent = 0;
    for (let i = lineStart; i < end; i++) {
      const c = markdown.charCodeAt(i);
      if (c === SPACE) indent++;
      else if (c === TAB) indent += 4;
      else break;
    }
    if (markers + (markers > 0 ? Math.floor(indent / 2) : 0) > limit) return { line, column: 1 };
    if (markers === 0 && indent >= 4) continue; // indented code
    if (isThematicBreak(markdown, lineStart, end)) continue;
    const longest = longestDelimiterRun(markdown, lineStart, end);
    if (longest.length > limit) return { line, column: longest.at + 1 };
  }
  return null;
}

const TAB = 9;
const SPACE = 32;
const ASTERISK = 42;
const UNDERSCORE = 95;
const BACKTICK = 96;
const TILDE = 126;
const GREATER_THAN = 62;

const isBlank = (c: number) => c === SPACE || c === TAB;
const isDigit = (c: number) => c >= 48 && c <= 57;

/** `>` quotes and list markers at the start of the line markdown[start, end). */
function containerMarkers(markdown: string, start: number, end: number): number {
  const at = (i: number) => (i < end ? markdown.charCodeAt(i) : -1);
  let i = start;
  let markers = 0;
  while (isBlank(at(i))) i++;
  for (;;) {
    const c = at(i);
    if (c === GREATER_THAN) i++;
    else if ((c === 45 || c === ASTERISK || c === 43) && isBlank(at(i + 1)))
      i++; // - * +
    else if (isDigit(c)) {
      let j = i;
      while (j - i < 9 && isDigit(at(j))) j++;
      const after = at(j);
      if ((after === 46 || after === 41) && isBlank(at(j + 1)))
        i = j + 1; // . )
      else break;
    } else break;
    markers++;
    while (isBlank(at(i))) i++;
  }
  return markers;
}

/** Blanks and at least one of `*` or `_`, only one of the two. */
function isThematicBreak(markdown: string, start: number, end: number): boolean {
  let mark = 0;
  for (let i = start; i < end; i++) {
    const c = markdown.charCodeAt(i);
    if (isBlank(c)) continue;
    if (mark === 0 && (c === ASTERISK || c === UNDERSCORE)) mark = c;
    else if (c !== mark) return false;
  }
  return mark !== 0;
}

/** The first longest run of `*` or of `_` in markdown[start, end), its column 0-based. */
function longestDelimiterRun(markdown: string, start: number, end: number): { at: number; length: number } {
  let at = 0;
  let length = 0;
  for (let i = start; i < end; ) {
    const c = markdown.charCodeAt(i);
    if (c !== ASTERISK && c !== UNDERSCORE) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < end && markdown.charCodeAt(j) === c) j++;
    if (j - i > length) {
      at = i - start;
      length = j - i;
    }
    i = j;
  }
  return { at, length };
}

/**
 * The first node of the tree deeper than `limit`. Recursive, but never deeper than `limit`:
 * it stops at the first node past it (and allocates nothing on the way, this runs per render).
 */
export function deepestNode(tree: Root, limit: number): DeepPlace | null {
  type Node = { children?: Node[]; position?: { start: { line: number; column: number } } };
  const visit = (node: Node, depth: number): DeepPlace | null => {
    if (depth > limit)
      return node.position
        ? { line: node.position.start.line, column: node.position.start.column }
        : { line: 1, column: 1 };
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
        if (depth > limit)
          return node.position
            ? { line: node.position.start.line, column: node.position.start.column }
            : { line: 1, column: 1 };
      }
    } else if ('children' in node) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Root['children'][number]);
    }
  }
  return null;
}
