// Rehype plugin, one walk over the tree before sanitizing:
// - relative image paths become the image's public URL. Paths resolve against the article file
//   (as GitHub's preview does); "/images/x.png" against the site folder;
// - in-page links ("#fn-1", "#setup") get the "user-content-" prefix that the sanitizer gives
//   ids, so an article cannot clobber globals of the page it lands on and its links still work;
// - links that may lead to another article are noted, for the build to check against the site;
// - an HTML <img> with no alt attribute is a warning (Markdown images: alt-text.ts).
import path from 'node:path';
import type { Element, ElementContent, Root, RootContent } from 'hast';
import type { VFile } from 'vfile';
import { mayLinkToArticle } from '../content/article-links.ts';
import { renderContext, type RenderContext } from './render-context.ts';

export const ID_PREFIX = 'user-content-';
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function rehypePrepareTree() {
  return function prepareTree(tree: Root, file: VFile): void {
    const ctx = renderContext(file);
    const walk = (nodes: RootContent[]) => {
      for (const node of nodes) {
        if (node.type !== 'element') continue;
        if (node.tagName === 'img') {
          // Only HTML leaves alt out: a Markdown image always has one, perhaps empty (alt-text.ts).
          if (node.properties.alt === undefined) altMissing(node, ctx);
          resolveImage(node, ctx);
        } else if (node.tagName === 'a') {
          noteLink(node, ctx);
          prefixFragment(node);
        }
        if (node.children.length) walk(node.children);
      }
    };
    walk(tree.children);
  };
}

/** Link text longer than this is cut in messages: enough to find the link by. */
const LINK_TEXT_SHOWN = 80;

function noteLink(node: Element, ctx: RenderContext): void {
  const href = node.properties.href;
  if (typeof href !== 'string' || !mayLinkToArticle(href)) return;
  const text = textOf(node).replace(/\s+/g, ' ').trim();
  ctx.links.push({
    href,
    text: text.length > LINK_TEXT_SHOWN ? `${text.slice(0, LINK_TEXT_SHOWN)}…` : text,
    ...placeOf(node, ctx),
  });
}

function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type !== 'element') return '';
  if (node.tagName === 'img' && typeof node.properties.alt === 'string') return node.properties.alt;
  return node.children.map(textOf).join('');
}

function altMissing(node: Element, ctx: RenderContext): void {
  const src = typeof node.properties.src === 'string' ? node.properties.src : '';
  ctx.problems.push({
    ...placeOf(node, ctx),
    code: 'CONTENT_IMAGE_ALT_MISSING',
    message: `image "${src}" has no alt attribute`,
    severity: 'warning',
  });
}

/** A node's place in the file (the body starts at ctx.bodyLine). */
function placeOf(node: Element, ctx: RenderContext): { line: number; column: number } {
  return {
    line: (node.position?.start.line ?? 1) + ctx.bodyLine - 1,
    column: node.position?.start.column ?? 1,
  };
}

function prefixFragment(node: Element): void {
  const href = node.properties.href;
  if (typeof href === 'string' && href.length > 1 && href.startsWith('#') && !href.startsWith(`#${ID_PREFIX}`)) {
    node.properties.href = `#${ID_PREFIX}${href.slice(1)}`;
  }
}

function resolveImage(node: Element, ctx: RenderContext): void {
  const src = node.properties.src;
  if (typeof src !== 'string' || src === '' || HAS_SCHEME.test(src) || src.startsWith('//')) return;
  const place = placeOf(node, ctx);
  let decoded: string;
  try {
    decoded = decodeURIComponent(src.replace(/[?#].*$/, ''));
  } catch {
    decoded = src;
  }
  const sitePath = decoded.startsWith('/')
    ? path.posix.normalize(decoded.slice(1))
    : path.posix.normalize(path.posix.join(ctx.articleDir, decoded));
  if (!sitePath.startsWith('images/')) {
    ctx.problems.push({
      ...place,
      code: 'CONTENT_IMAGE_OUTSIDE',
      message: `image "${src}" is not under the site's images/ folder`,
    });
    node.properties.src = '';
    return;
  }
  ctx.images.push(sitePath);
  const url = ctx.resolveImage(sitePath);
  if (url === undefined) {
    ctx.problems.push({
      ...place,
      code: 'CONTENT_IMAGE_MISSING',
      message: `image "${src}" does not exist (looked for ${sitePath})`,
    });
    node.properties.src = '';
    return;
  }
  node.properties.src = url;
}
