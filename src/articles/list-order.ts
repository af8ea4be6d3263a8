// The order of a site's articles wherever a list is made: the build's list, the index of filtered
// lists, a preview's list with drafts.
import type { ArticleListItem } from '../contract/article.ts';

type Dated = Pick<ArticleListItem, 'slug' | 'publishedAt' | 'updatedAt'>;

/**
 * Newest first: publishedAt, then updatedAt, then slug for a stable order. Plain code-unit
 * comparison: dates are all ISO 8601 UTC in one shape, and the order must not depend on the
 * machine's locale (localeCompare's collation also ignores `-` in slugs, and is slower:
 * docs/benchmarks-log.md, "figures first recorded in code comments").
 */
export function newestFirst(a: Dated, b: Dated): number {
  return (
    descending(a.publishedAt ?? '', b.publishedAt ?? '') ||
    descending(a.updatedAt ?? '', b.updatedAt ?? '') ||
    -descending(a.slug, b.slug)
  );
}

const descending = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);
