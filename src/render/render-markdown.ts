// Markdown → sanitized HTML with unified. Processors are built once per language; the costly
// rehype-raw pass runs only for documents that contain raw HTML. rehype-sanitize is the last
// transform: nothing touches the tree after it but the serializer.
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import type { Root as MdastRoot } from 'mdast';
import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkRehype from 'remark-rehype';
import { unified, type Processor } from 'unified';
import { VFile } from 'vfile';
import { CONTENT_LIMITS } from '../content/limits.ts';
import { parseGfm } from './gfm-parser.ts';
import { imagesWithoutAlt } from './alt-text.ts';
import { deepestBlockLine, deepestHtml, deepestNode, type DeepPlace } from './nesting.ts';
import { rehypePrepareTree } from './prepare-tree.ts';
import type { BodyLink, RenderContext, RenderProblem } from './render-context.ts';
import { markSanitized, type SafeHtml } from './safe-html.ts';
import { sanitizeSchema } from './sanitize-schema.ts';

export { RENDERER_VERSION } from './renderer-version.ts';

export const EXCERPT_MAX_LENGTH = 200;

export interface RenderInput {
  markdown: string;
  lang: string;
  articleDir: string;
  bodyLine: number;
  resolveImage: (sitePath: string) => string | undefined;
}

export interface RenderOutput {
  html: SafeHtml;
  /** Plain text of the first paragraph, cut at a word boundary (see deriveExcerpt). */
  excerpt: string;
  problems: RenderProblem[];
  images: string[];
  /** Links that may lead to another article of the site (checked by the build). */
  links: BodyLink[];
}

const FOOTNOTE_LABELS: Record<string, { label: string; back: string }> = {
  en: { label: 'Footnotes', back: 'Back to reference' },
  fr: { label: 'Notes', back: 'Retour à la référence' },
  de: { label: 'Fußnoten', back: 'Zurück zum Verweis' },
  es: { label: 'Notas', back: 'Volver a la referencia' },
  it: { label: 'Note', back: 'Torna al riferimento' },
  pt: { label: 'Notas', back: 'Voltar à referência' },
  nl: { label: 'Voetnoten', back: 'Terug naar verwijzing' },
};

type HtmlProcessor = Processor<undefined, MdastRoot, HastRoot, HastRoot, string>;
const htmlProcessors = new Map<string, HtmlProcessor>();

function htmlProcessor(lang: string, withRaw: boolean): HtmlProcessor {
  const base = lang.split('-')[0]!.toLowerCase();
  const key = `${base}:${withRaw}`;
  let processor = htmlProcessors.get(key);
  if (!processor) {
    const labels = FOOTNOTE_LABELS[base] ?? FOOTNOTE_LABELS.en!;
    const p = unified()
      .use(remarkRehype, {
        allowDangerousHtml: withRaw,
        clobberPrefix: '',
        footnoteLabel: labels.label,
        footnoteBackLabel: labels.back,
      })
      .use(withRaw ? [rehypeRaw] : [])
      .use(rehypePrepareTree)
      .use(rehypeSanitize, sanitizeSchema)
      .use(rehypeStringify);
    processor = p as unknown as HtmlProcessor;
    htmlProcessors.set(key, processor);
  }
  return processor;
}

/**
 * Never throws for a document: nesting past CONTENT_LIMITS.nestingDepth is refused before the
 * work it would blow up, and any other failure is this document's problem (CONTENT_RENDER_FAILED).
 */
export function renderMarkdown(input: RenderInput): RenderOutput {
  const limit = CONTENT_LIMITS.nestingDepth;
  const deepLine = deepestBlockLine(input.markdown, limit);
  if (deepLine) return tooDeep(input, deepLine);
  try {
    const ctx: RenderContext = {
      articleDir: input.articleDir,
      bodyLine: input.bodyLine,
      resolveImage: input.resolveImage,
      problems: [],
      images: [],
      links: [],
    };
    const file = new VFile({ value: input.markdown, data: { quire: ctx } });
    const mdast = parseGfm(input.markdown, file) as MdastRoot;
    const deepNode = deepestNode(mdast, limit);
    if (deepNode) return tooDeep(input, deepNode);
    const withRaw = containsRawHtml(mdast); // recursive: safe once the depth is known to be bounded
    const deepHtml = withRaw ? deepestHtml(mdast, limit) : null;
    if (deepHtml) return tooDeep(input, deepHtml);
    ctx.problems.push(...imagesWithoutAlt(mdast, input.bodyLine));
    const processor = htmlProcessor(input.lang, withRaw);
    const hast = processor.runSync(mdast, file);
    const html = processor.stringify(hast, file);
    const problems = ctx.problems.sort((a, b) => a.line - b.line || a.column - b.column);
    return { html: markSanitized(html), excerpt: deriveExcerpt(hast), problems, images: ctx.images, links: ctx.links };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return failed(input, { line: 1, column: 1 }, 'CONTENT_RENDER_FAILED', `the body could not be rendered: ${message}`);
  }
}

function tooDeep(input: RenderInput, at: DeepPlace): RenderOutput {
  return failed(
    input,
    at,
    'CONTENT_TOO_DEEP',
    `the body nests deeper than ${CONTENT_LIMITS.nestingDepth} levels here (quotes, lists, emphasis, links or HTML elements)`,
  );
}

function failed(input: RenderInput, at: DeepPlace, code: RenderProblem['code'], message: string): RenderOutput {
  const problem: RenderProblem = { line: at.line + input.bodyLine - 1, column: at.column, code, message };
  return { html: markSanitized(''), excerpt: '', problems: [problem], images: [], links: [] };
}

function containsRawHtml(node: { type: string; children?: unknown[] }): boolean {
  if (node.type === 'html') return true;
  return node.children ? (node.children as { type: string; children?: unknown[] }[]).some(containsRawHtml) : false;
}

/**
 * The excerpt rule: the plain text of the first paragraph that has any, read from the sanitized
 * tree (so no markup or stripped content leaks into it), footnote markers left out, whitespace
 * collapsed; when longer than EXCERPT_MAX_LENGTH characters it is cut at the last space before
 * that length and ends with "…".
 */
export function deriveExcerpt(tree: HastRoot): string {
  return cutAtWord(firstParagraphText(tree.children) ?? '', EXCERPT_MAX_LENGTH);
}

function firstParagraphText(nodes: HastRoot['children']): string | null {
  for (const node of nodes) {
    if (node.type !== 'element') continue;
    if (node.tagName === 'p') {
      const text = textOf(node).replace(/\s+/g, ' ').trim();
      if (text) return text;
    } else {
      const inner = firstParagraphText(node.children);
      if (inner) return inner;
    }
  }
  return null;
}

export function cutAtWord(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max).join('');
  const space = head.lastIndexOf(' ');
  const cut = space > max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.!?\-–—]+$/u, '')}…`;
}

function textOf(node: ElementContent | Element): string {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element') return '';
  if (node.properties.dataFootnoteRef !== undefined) return '';
  if (
    node.tagName === 'sup' &&
    node.children.some((c) => c.type === 'element' && c.properties.dataFootnoteRef !== undefined)
  )
    return '';
  return node.children.map(textOf).join('');
}
