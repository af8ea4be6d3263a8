// Every article of a (filtered) list, page by page, without ever truncating, skipping or repeating
// one silently. Offset paging alone would: an article published while we page shifts every later
// one down a place (the next page repeats one), a withdrawn one shifts them up (the next page skips
// one). So each page after the first is asked for from one place earlier and must start with the
// article the last page ended with, and the list must end exactly at its `total`. When either check
// fails the list changed under us: we start again from the top and yield only slugs not yielded
// yet, so nothing is repeated and nothing that is still listed is missed; after `maxRestarts`
// such restarts we throw QuireListChangedError instead of going on.
import type { ArticleList } from '../contract/article.ts';
import { QuireListChangedError } from './errors.ts';

export interface PageRequest {
  limit: number;
  offset: number;
}

export async function* everyItem<Item extends { slug: string }>(
  fetchPage: (page: PageRequest) => Promise<Omit<ArticleList, 'articles'> & { articles: Item[] }>,
  pageSize: number,
  maxRestarts: number,
): AsyncGenerator<Item, void, undefined> {
  const yielded = new Set<string>();
  for (let restart = 0; ; restart++) {
    const outcome = yield* onePass(fetchPage, pageSize, yielded);
    if (outcome === 'complete') return;
    if (restart >= maxRestarts) {
      throw new QuireListChangedError(
        `the article list kept changing while it was paged (${maxRestarts + 1} attempts); ${yielded.size} articles were yielded`,
      );
    }
  }
}

async function* onePass<Item extends { slug: string }>(
  fetchPage: (page: PageRequest) => Promise<Omit<ArticleList, 'articles'> & { articles: Item[] }>,
  pageSize: number,
  yielded: Set<string>,
): AsyncGenerator<Item, 'complete' | 'changed', undefined> {
  let position = 0; // how many articles of the list this pass has read
  let lastSlug: string | null = null;
  for (;;) {
    // After the first page, one article of overlap: the one the last page ended with.
    const overlap = lastSlug === null ? 0 : 1;
    const page = await fetchPage({ limit: pageSize + overlap, offset: position - overlap });
    if (overlap === 1 && page.articles[0]?.slug !== lastSlug) return 'changed';
    const fresh = page.articles.slice(overlap);
    for (const item of fresh) {
      if (yielded.has(item.slug)) continue;
      yielded.add(item.slug);
      yield item;
    }
    position += fresh.length;
    if (fresh.length > 0) lastSlug = fresh[fresh.length - 1]!.slug;
    if (position >= page.total) return position === page.total ? 'complete' : 'changed';
    // A short page before `total` is reached: the list shrank under us.
    if (fresh.length < pageSize) return 'changed';
  }
}
