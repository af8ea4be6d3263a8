// Which dates an article carries. Front matter wins, date by date. A published article's missing
// ones come from its history: git, or the file's modification time for uncommitted work and
// outside a repository (how history is read: src/git/git-history.ts). A draft has only the dates
// in its front matter: its history is never read.
import type { ArticleMeta } from '../content/model.ts';

export interface ArticleDates {
  publishedAt: string | null;
  updatedAt: string | null;
}

type DatedMeta = Pick<ArticleMeta, 'status' | 'publishedAt' | 'updatedAt'>;

/** Which dates must be read from the article's history; null when none is. */
export function datesFromHistory(meta: DatedMeta): { publishedAt: boolean } | null {
  if (meta.status !== 'published' || (meta.publishedAt && meta.updatedAt)) return null;
  return { publishedAt: !meta.publishedAt };
}

/** The article's dates: each from front matter when set there, else from `history`. */
export function articleDates(meta: DatedMeta, history: ArticleDates | null | undefined): ArticleDates {
  const fromHistory = meta.status === 'published' ? history : null;
  return {
    publishedAt: meta.publishedAt ?? fromHistory?.publishedAt ?? null,
    updatedAt: meta.updatedAt ?? fromHistory?.updatedAt ?? null,
  };
}

/**
 * The date its history gives as first published when the article's `expiresAt` is not after it
 * (it would never be served); null when it is, or either is missing. Against a `publishedAt` in
 * front matter, the front matter's own check tells (src/content/parse-article.ts).
 */
export function expiryNotAfterHistory(
  meta: Pick<ArticleMeta, 'publishedAt' | 'expiresAt'>,
  history: ArticleDates | null | undefined,
): string | null {
  const fromHistory = history?.publishedAt;
  if (!meta.expiresAt || meta.publishedAt || !fromHistory || Date.parse(meta.expiresAt) > Date.parse(fromHistory))
    return null;
  return fromHistory;
}
