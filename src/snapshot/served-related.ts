// An article's `related` as public readers get it at an instant. The build has no clock: it
// lists every published article an article names, scheduled ones too. Served at time t, the list
// names only those live at t, so a scheduled article's slug and title are not seen before its
// go-live (nor an expired one's after its expiry), and the answer says until when it holds: the
// next go-live or expiry among them. Preview answers are made from the build's bodies, whole.
// No Node-only imports: the edge Worker serves bodies through this too.
import { hashBytes } from '../export/content-hash.ts';
import type { Body } from './snapshot-reader.ts';
import type { ManifestArticle } from '../export/manifest.ts';
import { changeTimes, isLiveAt, nextChangeAfter, type ArticleWindow } from '../schedule/windows.ts';

/** What is read of a site's manifest entries: each article's window and the slugs it names. */
export type RelatedWindows = Readonly<Record<string, ArticleWindow & Pick<ManifestArticle, 'related'>>>;

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/** The next instant after `nowMs` at which the `related` of `entry` changes (a go-live or an expiry of one it names); null: none. */
export function relatedChangesAt(
  entry: Pick<ManifestArticle, 'related'>,
  articles: RelatedWindows,
  nowMs: number,
): number | null {
  const windows = (entry.related ?? []).flatMap((slug) => (articles[slug] ? [articles[slug]] : []));
  return nextChangeAfter(changeTimes(windows, nowMs), nowMs);
}

/**
 * `body` with its `related` cut to the articles live at `nowMs`; the same body when all of them
 * are. A cut body has its own ETag (its bytes' hash) and no stored compressed variants: it is made
 * again from the build's bytes at each instant, so its ETag changes when the list does.
 */
export function withLiveRelated(
  body: Body,
  entry: Pick<ManifestArticle, 'related'>,
  articles: RelatedWindows,
  nowMs: number,
): Body {
  const hidden = new Set((entry.related ?? []).filter((slug) => !articles[slug] || !isLiveAt(articles[slug], nowMs)));
  if (!hidden.size) return body;
  // The body is the build's own JSON.stringify output: parsed and written again, every other byte
  // comes back as it was (same key order, same escapes).
  const article = JSON.parse(utf8.decode(body.bytes)) as { related: { slug: string }[] };
  article.related = article.related.filter((r) => !hidden.has(r.slug));
  const bytes = encoder.encode(JSON.stringify(article));
  return { bytes, etag: `"${hashBytes(bytes)}"` };
}
