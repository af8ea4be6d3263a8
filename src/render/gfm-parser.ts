// GFM parsing without paying for the literal-autolink tokenizer where it changes nothing.
//
// remark-gfm finds bare URLs twice over: a micromark tokenizer marks them while parsing, and an
// mdast transform (mdast-util-gfm-autolink-literal) turns URLs found in text nodes into links.
// The tokenizer costs about a third of all parsing, yet the transform alone gives the same tree
// unless a bare URL or e-mail has an unusual shape: markup characters inside it, a `mailto:` or
// `xmpp:` prefix, a host without a dot. A document whose every candidate has a plain shape is
// parsed without the tokenizer (the transform still makes the links); any other by the full
// remark-gfm. test/render/gfm-parser.test.ts holds the two to identical output.
import type { Root } from 'mdast';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { combineExtensions } from 'micromark-util-combine-extensions';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';

function remarkGfmWithoutLiteralTokenizer(this: Processor) {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(combineExtensions([gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()]));
  (data.fromMarkdownExtensions ??= []).push(gfmFromMarkdown());
}

export const fullGfmParser = unified().use(remarkParse).use(remarkGfm).freeze();
export const fastGfmParser = unified().use(remarkParse).use(remarkGfmWithoutLiteralTokenizer).freeze();

/** Bare-URL and e-mail candidates, the way the GFM tokenizer starts them, up to white space. */
const CANDIDATE = /(?:https?:\/\/|www\.)\S*|\S*@\S*/gi;
/** Shapes both ways of finding links agree on (checked by test/render/gfm-parser.test.ts). */
const PLAIN_URL = /^(?:https?:\/\/|www\.)[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#][a-z0-9\-./?=#%+,()]*)?[.,)]*$/i;
const PLAIN_EMAIL = /^\(?[a-z0-9.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+[.,)]*$/i;

/** True unless every bare URL or e-mail candidate has a plain shape. */
export function needsLiteralTokenizer(markdown: string): boolean {
  if (!/https?:\/\/|www\.|@/i.test(markdown)) return false;
  for (const m of markdown.matchAll(CANDIDATE)) {
    const candidate = m[0];
    const plain = candidate.includes('@') && !/^(?:https?:\/\/|www\.)/i.test(candidate) ? PLAIN_EMAIL : PLAIN_URL;
    if (!plain.test(candidate)) return true;
  }
  return false;
}

export function parseGfm(markdown: string, file: Parameters<typeof fullGfmParser.parse>[0]): Root {
  return (needsLiteralTokenizer(markdown) ? fullGfmParser : fastGfmParser).parse(file) as Root;
}
