// GFM parsing as remark-gfm does it, minus three costs that change nothing in the tree.
//
// 1. Bare URLs. remark-gfm finds them twice over: a micromark tokenizer marks them while
//    parsing, and an mdast transform (mdast-util-gfm-autolink-literal) turns URLs found in text
//    nodes into links. The tokenizer is a large part of all parsing (docs/benchmarks-log.md,
//    "figures first recorded in code comments"), yet the transform alone gives the same tree
//    unless a bare URL or e-mail has an unusual shape: markup characters inside it, a `mailto:`
//    or `xmpp:` prefix, a host without a dot. A document whose every candidate has a plain shape
//    is parsed without the tokenizer. Candidates inside code and HTML blocks do not count
//    (neither way finds links there): when every odd-shaped candidate lies in one, the fast
//    parse's tree is kept, since the tokenizer works on inline text only and so cannot move a
//    block's bounds.
// 2. The transform itself walks every text node with four regular expressions. Each of them
//    needs `http://`, `https://`, `www.` or `@` in the node, so when no text node holds one of
//    those the walk is skipped. Text inside links does not count: the transform skips it.
// 3. Tables. micromark tries a table at the start of every block and reads the whole first line
//    as a possible header row before it looks at the next line for the delimiter row (`| --- |`).
//    A table is only tried where the next line could be a delimiter row.
// 4. Task list items. The check for `[ ]`/`[x]` is tried at every `[` of the text, and fails at
//    once unless it is first in a list item's first paragraph: it is only tried there.
// Both gates are `_mayStart` hooks (patches/micromark+*.patch), so a refused attempt costs
// neither a snapshot of the tokenizer nor the construct's states.
// test/render/gfm-parser.test.ts holds the result to remark-gfm's, trees and positions included.
import type { Root } from 'mdast';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import type { Extension as FromMarkdownExtension, Transform } from 'mdast-util-from-markdown';
import type { Code, Construct, Extension, TokenizeContext } from 'micromark-util-types';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { combineExtensions } from 'micromark-util-combine-extensions';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';

/**
 * Bare-URL and e-mail candidates, the way the GFM tokenizer starts them, up to white space. An
 * e-mail candidate is a whole run of non-space characters with an `@` in it, so it is tried only
 * where a run starts (`(?<!\S)`): tried at every position, `\S*@` re-read the rest of each word
 * from each of its characters (docs/benchmarks-log.md, "figures first recorded in code comments").
 */
const CANDIDATE = /(?:https?:\/\/|www\.)\S*|(?<!\S)\S*@\S*/gi;
/** The same without e-mail candidates, which need an `@`: trying them at every word start of a
 * document that has none was a large part of this check (docs/benchmarks-log.md, "figures first
 * recorded in code comments"). */
const URL_CANDIDATE = /(?:https?:\/\/|www\.)\S*/gi;
/** Shapes both ways of finding links agree on (checked by test/render/gfm-parser.test.ts). */
const PLAIN_URL = /^(?:https?:\/\/|www\.)[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#][a-z0-9\-./?=#%+,()]*)?[.,)]*$/i;
const PLAIN_EMAIL = /^\(?[a-z0-9.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+[.,)]*$/i;
/** What every pattern of the literal-autolink transform needs somewhere in a text node. */
const LITERAL_LINK_HINT = /https?:\/\/|www\.|@/i;
/** A line that could be a table's delimiter row: only pipes, colons, dashes, blanks, after any `>`. */
const DELIMITER_ROW_SHAPE = /^[\t >]*[-:|][\t |:-]*$/;

/** Where bare URL or e-mail candidates of an unusual shape start, in source order. */
function oddCandidateOffsets(markdown: string): number[] {
  const offsets: number[] = [];
  if (!LITERAL_LINK_HINT.test(markdown)) return offsets;
  for (const m of markdown.matchAll(markdown.includes('@') ? CANDIDATE : URL_CANDIDATE)) {
    const candidate = m[0];
    const plain = candidate.includes('@') && !/^(?:https?:\/\/|www\.)/i.test(candidate) ? PLAIN_EMAIL : PLAIN_URL;
    if (!plain.test(candidate)) offsets.push(m.index);
  }
  return offsets;
}

/** True unless every bare URL or e-mail candidate has a plain shape. */
export function needsLiteralTokenizer(markdown: string): boolean {
  return oddCandidateOffsets(markdown).length > 0;
}

/** Nodes whose children are blocks: the only places code and HTML blocks sit. */
const BLOCK_CONTAINERS = new Set(['root', 'blockquote', 'list', 'listItem', 'footnoteDefinition']);
type BlockNode = {
  type: string;
  children?: BlockNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
};

/**
 * Whether every offset lies inside a code block or an HTML block of the tree. Candidates never
 * span a line ending, so one that starts inside such a block ends inside it.
 */
function allInsideRawBlocks(tree: BlockNode, offsets: number[]): boolean {
  const spans: [number, number][] = [];
  const collect = (node: BlockNode) => {
    for (const child of node.children ?? []) {
      if (child.type === 'code' || child.type === 'html') {
        const start = child.position?.start.offset;
        const end = child.position?.end.offset;
        if (start === undefined || end === undefined) return false;
        spans.push([start, end]);
      } else if (BLOCK_CONTAINERS.has(child.type) && !collect(child)) return false;
    }
    return true;
  };
  if (!collect(tree)) return false;
  let i = 0; // spans come in source order, and so do the offsets
  for (const offset of offsets) {
    while (i < spans.length && spans[i]![1] <= offset) i++;
    if (i === spans.length || offset < spans[i]![0]) return false;
  }
  return true;
}

// --- tables ---------------------------------------------------------------------------------

/**
 * The document being parsed, for the table gate. Parsing is synchronous and parseGfm sets and
 * clears it around the call, so it always belongs to the parse that reads it. Outside parseGfm
 * it is null and every table attempt goes to micromark unchanged.
 */
let current: { markdown: string; delimiterAfter: Uint8Array | null } | null = null;

/** delimiterAfter[n] is 1 when line n + 1 (1-based, as micromark counts) could be a delimiter row. */
function delimiterAfter(doc: NonNullable<typeof current>): Uint8Array {
  if (!doc.delimiterAfter) {
    const lines = doc.markdown.split(/\r\n|\r|\n/); // micromark's line endings
    const flags = new Uint8Array(lines.length + 1);
    lines.forEach((line, i) => {
      if (i > 0 && line.includes('-') && DELIMITER_ROW_SHAPE.test(line)) flags[i] = 1; // line i + 1 follows line i
    });
    doc.delimiterAfter = flags;
  }
  return doc.delimiterAfter;
}

/** Whether the table tokenizer would read a body row here (it follows a head or a row). */
function continuesTable(context: TokenizeContext): boolean {
  let index = context.events.length - 1;
  while (index > -1) {
    const type = context.events[index]![1].type;
    if (type !== 'lineEnding' && type !== 'linePrefix') return type === 'tableHead' || type === 'tableRow';
    index--;
  }
  return false;
}

/**
 * A construct with the `_mayStart` hook of Quire's micromark patch (patches/micromark+*.patch):
 * when it returns false for a code, the attempt fails there, before a snapshot is taken.
 */
type PrecheckedConstruct = Construct & { _mayStart: (code: Code, context: TokenizeContext) => boolean };

function gatedTable(): Extension {
  const table = (gfmTable().flow as Record<string, Construct>).null!;
  const gated: PrecheckedConstruct = {
    ...table,
    _mayStart: (_code, context) => {
      const doc = current;
      return !doc || continuesTable(context) || delimiterAfter(doc)[context.now().line] === 1;
    },
  };
  return { flow: { null: gated } };
}

// --- task list item checks -------------------------------------------------------------------

/** The task list item check (`[x]`) tried only where it can be: first in a list item's first
 * paragraph (its tokenizer fails at once anywhere else, on every `[` of every link). */
function checkedTaskListItem(): Extension {
  const check = (gfmTaskListItem().text as Record<number, Construct>)[91]!;
  type TaskContext = TokenizeContext & { _gfmTasklistFirstContentOfListItem?: boolean };
  const gated: PrecheckedConstruct = {
    ...check,
    _mayStart: (_code, context) =>
      context.previous === null && Boolean((context as TaskContext)._gfmTasklistFirstContentOfListItem),
  };
  return { text: { 91: gated } };
}

// --- the literal-autolink transform ---------------------------------------------------------

/** Nodes whose text the transform leaves alone (its `ignore` list): autolinks' text is a URL. */
const LITERAL_LINK_IGNORED = new Set(['link', 'linkReference']);

function mayHoldLiteralLink(node: { type: string; value?: unknown; children?: unknown[] }): boolean {
  if (node.type === 'text') return LITERAL_LINK_HINT.test(node.value as string);
  if (LITERAL_LINK_IGNORED.has(node.type)) return false;
  return node.children ? (node.children as (typeof node)[]).some(mayHoldLiteralLink) : false;
}

/** mdast-util-gfm's extensions, with the literal-autolink one's transform gated. */
function gatedFromMarkdown(): FromMarkdownExtension[] {
  return gfmFromMarkdown().map((extension) => {
    if (!extension.enter?.literalAutolink || !extension.transforms) return extension;
    const transforms: Transform[] = extension.transforms.map(
      (transform) => (tree) => (mayHoldLiteralLink(tree) ? transform(tree) : undefined),
    );
    return { ...extension, transforms };
  });
}

// --- the parsers ----------------------------------------------------------------------------

function remarkQuireGfm(this: Processor, options: { literalTokenizer: boolean }) {
  const data = this.data();
  const syntax = [gfmFootnote(), gfmStrikethrough(), gatedTable(), checkedTaskListItem()];
  (data.micromarkExtensions ??= []).push(
    combineExtensions(options.literalTokenizer ? [gfmAutolinkLiteral(), ...syntax] : syntax),
  );
  (data.fromMarkdownExtensions ??= []).push(gatedFromMarkdown());
}

export const fullGfmParser = unified().use(remarkParse).use(remarkQuireGfm, { literalTokenizer: true }).freeze();
export const fastGfmParser = unified().use(remarkParse).use(remarkQuireGfm, { literalTokenizer: false }).freeze();

export function parseGfm(markdown: string, file: Parameters<typeof fullGfmParser.parse>[0]): Root {
  return parseGfmTracked(markdown, file).tree;
}

/** parseGfm, saying whether the literal-autolink tokenizer had to run. */
export function parseGfmTracked(
  markdown: string,
  file: Parameters<typeof fullGfmParser.parse>[0],
): { tree: Root; literalTokenizer: boolean } {
  const odd = oddCandidateOffsets(markdown);
  current = { markdown, delimiterAfter: null };
  try {
    const fast = fastGfmParser.parse(file) as Root;
    if (odd.length === 0 || allInsideRawBlocks(fast as BlockNode, odd)) return { tree: fast, literalTokenizer: false };
    return { tree: fullGfmParser.parse(file) as Root, literalTokenizer: true };
  } finally {
    current = null;
  }
}
