// Markdown images without alt text: `![](map.png)` says nothing to a screen reader or a search
// engine. Read from the Markdown tree, where such an image is told from an HTML `<img alt="">`,
// which marks an image as decoration on purpose (HTML images: prepare-tree.ts).
import type { Nodes, Root } from 'mdast';
import type { RenderProblem } from './render-context.ts';

/** A warning for each Markdown image (inline or by reference) whose alt text is empty. */
export function imagesWithoutAlt(tree: Root, bodyLine: number): RenderProblem[] {
  const problems: RenderProblem[] = [];
  // A stack, not recursion: the depth is bounded before this runs, but a stack costs nothing more.
  const stack: Nodes[] = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    if ((node.type === 'image' || node.type === 'imageReference') && !node.alt?.trim()) {
      const shown = node.type === 'image' ? node.url : `[${node.label ?? node.identifier}]`;
      problems.push({
        line: (node.position?.start.line ?? 1) + bodyLine - 1,
        column: node.position?.start.column ?? 1,
        code: 'CONTENT_IMAGE_ALT_MISSING',
        message: `image "${shown}" has no alt text`,
        severity: 'warning',
      });
    }
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return problems;
}
