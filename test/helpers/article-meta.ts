// An article's checked front matter, read from YAML the way the loader reads it.
import { parseArticle } from '../../src/content/parse-article.ts';
import type { ArticleMeta } from '../../src/content/model.ts';

export function metaOf(yaml: string): ArticleMeta {
  const parsed = parseArticle('/site/articles/a.md', new TextEncoder().encode(`---\n${yaml}\n---\nBody.\n`));
  if (!parsed.meta || parsed.issues.length)
    throw new Error(`front matter with problems: ${parsed.issues.map((i) => i.code).join(', ')}`);
  return parsed.meta;
}
