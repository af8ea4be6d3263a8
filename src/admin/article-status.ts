// What the Articles tab says of each article: published, scheduled (published, with a
// publishedAt still ahead), expired (past its expiresAt), draft, or broken (it has errors, so the
// build refuses it), whether the API serves it, and its problems with their hints. A pure
// function of small typed facts, so whichever source of build results there is plugs in.
import type { IssueCode } from '../content/issues.ts';
import { visibilityAt } from '../schedule/windows.ts';

export interface ArticleProblem {
  code: IssueCode;
  message: string;
  /** `content/<site>/articles/x.md:line:col` */
  place: string;
  /** The other place a problem involves (the first use of a duplicate slug), if any. */
  other: string | null;
  hint: string | null;
  severity: 'error' | 'warning';
}

export interface ArticleFacts {
  /** `content/<site>/articles/x.md` */
  file: string;
  /** Null when the front matter could not be read. */
  slug: string | null;
  title: string | null;
  /** What the front matter asks for; null when unreadable. */
  wanted: 'published' | 'draft' | null;
  kind: string | null;
  publishedAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
  problems: ArticleProblem[];
}

/** An article the Content API serves now (from the last good build). */
export interface LiveArticle {
  publishedAt: string | null;
  updatedAt: string | null;
}

export type ArticleState = 'published' | 'scheduled' | 'expired' | 'draft' | 'broken';

export interface ArticleStatusRow {
  file: string;
  slug: string | null;
  title: string;
  state: ArticleState;
  /** Served by the API: for a broken article, an earlier version. */
  live: boolean;
  kind: string | null;
  publishedAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
  problems: ArticleProblem[];
  /** A signed link that opens it on the site's preview route (drafts and scheduled articles, when the site has one). */
  previewLink?: string;
}

const PUBLISHED_STATE = { live: 'published', scheduled: 'scheduled', expired: 'expired' } as const;

const ORDER: Record<ArticleState, number> = { broken: 0, scheduled: 1, draft: 2, published: 3, expired: 4 };

/**
 * Broken first (they need work), then scheduled (soonest first), drafts, published and expired;
 * newest first within each. `nowMs` decides scheduled and expired.
 */
export function articleStatuses(
  facts: readonly ArticleFacts[],
  live: ReadonlyMap<string, LiveArticle>,
  nowMs: number,
): ArticleStatusRow[] {
  return facts
    .map((f): ArticleStatusRow => {
      const served = f.slug !== null ? live.get(f.slug) : undefined;
      const publishedAt = served?.publishedAt ?? f.publishedAt;
      const state: ArticleState = f.problems.some((p) => p.severity === 'error')
        ? 'broken'
        : f.wanted !== 'published'
          ? 'draft'
          : PUBLISHED_STATE[visibilityAt({ publishedAt, expiresAt: f.expiresAt }, nowMs)];
      return {
        file: f.file,
        slug: f.slug,
        title: f.title ?? f.file,
        state,
        live: served !== undefined,
        kind: f.kind,
        publishedAt,
        updatedAt: served?.updatedAt ?? f.updatedAt,
        expiresAt: f.expiresAt,
        problems: f.problems,
      };
    })
    .sort(
      (x, y) =>
        ORDER[x.state] - ORDER[y.state] ||
        (x.state === 'scheduled' ? (x.publishedAt ?? '').localeCompare(y.publishedAt ?? '') : 0) ||
        (y.updatedAt ?? '').localeCompare(x.updatedAt ?? '') ||
        x.file.localeCompare(y.file),
    );
}

export function countStates(statuses: readonly ArticleStatusRow[]): Record<ArticleState, number> {
  const counts: Record<ArticleState, number> = { published: 0, scheduled: 0, expired: 0, draft: 0, broken: 0 };
  for (const s of statuses) counts[s.state]++;
  return counts;
}
