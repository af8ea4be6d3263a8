// An article's build keys: its file hashed with everything else its output depends on. The check
// key names its render problems (file, renderer, public URL, language, images); the input key its
// files in dist/ or the preview tree (the check key with the site's settings, author, related
// titles and dates). An article whose input key is the previous build's is taken over unread.
import type { FileDates } from '../git/git-history.ts';
import type { LoadedSite } from '../content/load-content.ts';
import type { ArticleSource } from '../content/model.ts';
import { relatedArticles } from '../articles/shapes.ts';
import { hashBytes } from '../export/content-hash.ts';
import { RENDERER_VERSION } from '../render/renderer-version.ts';

/** An article's build keys, with what they were computed under. */
export interface ArticleKeys {
  /** Hash of the site-wide inputs: renderer, public URL, site settings, authors, images. */
  context: string;
  /** The article's own inputs beyond its file: resolved related titles and git dates, as JSON ('' when none). */
  extra: string;
  checkKey: string;
  inputKey: string;
}

/**
 * The keys last computed for each version of a source file (its `ArticleSource.version`), kept
 * with the build state for the next build: a version no longer loaded drops out on its own.
 */
export type ArticleKeyMemo = WeakMap<object, ArticleKeys>;

export interface KeyInputs {
  publicUrl: string;
  dates: ReadonlyMap<string, FileDates>;
  memo: ArticleKeyMemo;
  /** Slug → title of the site's published articles, for `related`. */
  published: ReadonlyMap<string, string>;
}

/** A function giving each article of `loaded` its keys. */
export function articleKeysOf(loaded: LoadedSite, inputs: KeyInputs): (source: ArticleSource) => ArticleKeys {
  const { site, authors } = loaded;
  const { publicUrl, dates, memo, published } = inputs;
  const imagesKey = hashBytes(JSON.stringify([...loaded.images.values()].map((i) => [i.sitePath, i.size, i.mtimeMs])));
  const siteKey = JSON.stringify([RENDERER_VERSION, publicUrl, site.name, site.lang, site.url, site.articlePath]);
  // Unchanged, an article's keys are taken from the last build (the memo) instead of being hashed
  // again (for every article of a large site, a good part of a one-change rebuild:
  // docs/benchmarks-log.md, "figures first recorded in code comments"): the file is the same
  // version when its memo is, and the rest is `context` (site-wide) and `extra`.
  const context = hashBytes(JSON.stringify([RENDERER_VERSION, publicUrl, imagesKey, siteKey, [...authors.values()]]));
  return (source) => {
    const { meta } = source;
    const related = meta.related.length ? relatedArticles(meta, published) : [];
    const fileDates = dates.get(source.file) ?? null;
    const extra = related.length || fileDates ? JSON.stringify([related, fileDates]) : '';
    const known = source.version && memo.get(source.version);
    if (known && known.context === context && known.extra === extra) return known;
    const checkKey = hashBytes(
      JSON.stringify([RENDERER_VERSION, publicUrl, source.sitePath, source.hash, meta.lang ?? site.lang, imagesKey]),
    );
    const author = meta.author ? (authors.get(meta.author) ?? null) : null;
    const inputKey = hashBytes(JSON.stringify([checkKey, siteKey, author, related, fileDates]));
    const keys = { context, extra, checkKey, inputKey };
    if (source.version) memo.set(source.version, keys);
    return keys;
  };
}
