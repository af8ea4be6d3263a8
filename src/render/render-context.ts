// What one render call hands its plugins, carried on the VFile so processors are built once.
import type { VFile } from 'vfile';
import type { FoundLink } from '../content/article-links.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';

export interface RenderProblem
  extends Problem<
    Extract<
      CodeIn<'content'>,
      | 'CONTENT_IMAGE_MISSING'
      | 'CONTENT_IMAGE_OUTSIDE'
      | 'CONTENT_IMAGE_ALT_MISSING'
      | 'CONTENT_TOO_DEEP'
      | 'CONTENT_RENDER_FAILED'
    >
  > {
  line: number;
  column: number;
  /** Absent: an error. */
  severity?: 'warning';
}

/**
 * A link of the body that may lead to an article of the same site (`mayLinkToArticle`): its href as
 * the rendered HTML has it, its text cut to a length a message can quote, its place. Which article,
 * if any, the build decides with the site's articles (src/content/article-links.ts).
 */
export type BodyLink = FoundLink;

/** Whether a render's problems say it failed (such results are not cached: the failure may not recur). */
export const renderFailed = (problems: readonly RenderProblem[]): boolean =>
  problems.some((p) => p.code === 'CONTENT_RENDER_FAILED');

export interface RenderContext {
  /** Site-relative folder of the article, e.g. `articles/guides`. */
  articleDir: string;
  /** Line of the file where the Markdown body starts. */
  bodyLine: number;
  /** Public URL for an image under the site folder (`images/…`), or undefined when missing. */
  resolveImage: (sitePath: string) => string | undefined;
  problems: RenderProblem[];
  /** Site paths of the images the body references. */
  images: string[];
  links: BodyLink[];
}

export function renderContext(file: VFile): RenderContext {
  const ctx = file.data.quire as RenderContext | undefined;
  if (!ctx) throw new Error('render context missing: call renderMarkdown()');
  return ctx;
}
