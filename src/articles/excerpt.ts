// Which excerpt an article's list item carries: `excerpt` from front matter; else the one derived
// from its body (deriveExcerpt in src/render/render-markdown.ts: the first paragraph with text);
// else, for a body without one, its `metaDescription`; else nothing ('').
import type { ArticleMeta } from '../content/model.ts';

/** `derived`: the body's excerpt as rendering gave it ('' when the body has no paragraph with text). */
export function chooseExcerpt(meta: Pick<ArticleMeta, 'excerpt' | 'metaDescription'>, derived: string): string {
  return meta.excerpt ?? (derived || meta.metaDescription || '');
}
