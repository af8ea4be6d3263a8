// Rehype plugin: relative image paths in a body become the image's public URL. Paths resolve
// against the article file (as GitHub's preview does); "/images/x.png" against the site folder.
import path from 'node:path';
import type { Element, Root } from 'hast';
import type { VFile } from 'vfile';
import { visit } from 'unist-util-visit';
import { renderContext } from './render-context.ts';

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function rehypeResolveImages() {
  return function resolveImages(tree: Root, file: VFile): void {
    const ctx = renderContext(file);
    visit(tree, 'element', (node: Element) => {
      if (node.tagName !== 'img') return;
      const src = node.properties.src;
      if (typeof src !== 'string' || src === '' || HAS_SCHEME.test(src) || src.startsWith('//')) return;
      const place = {
        line: (node.position?.start.line ?? 1) + ctx.bodyLine - 1,
        column: node.position?.start.column ?? 1,
      };
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
      const url = ctx.resolveImage(sitePath);
      ctx.images.push(sitePath);
      if (url === undefined) {
        ctx.problems.push({ ...place, code: 'CONTENT_IMAGE_MISSING', message: `image "${src}" does not exist (looked for ${sitePath})` });
        node.properties.src = '';
        return;
      }
      node.properties.src = url;
    });
  };
}
