// The typed Content API client: `createClient({baseUrl, key})`. fetch only, so it runs in Node,
// browsers and Workers; types from the contract (src/contract/), imported as types only.
import type { Article, ArticleList, ArticleListItem, SiteSummary } from '../contract/article.ts';
import type { ChangeFeed } from '../contract/changes.ts';
import { changesQuery, followFeed, type ChangesOptions } from './changes.ts';
import { QuireApiError } from './errors.ts';
import { getJson, type ResponseCache } from './http.ts';
import { everyItem } from './paging.ts';

/** Set on answers to a preview key (`pv_…`), which also sees drafts and scheduled articles. */
export type PublicationStatus = 'draft' | 'scheduled' | 'published';
/** An answer's article, with the `status` a preview key's answers carry. */
export type WithStatus<T> = T & { status?: PublicationStatus };

export type ClientArticle = WithStatus<Article>;
export type ClientArticleListItem = WithStatus<ArticleListItem>;
export interface ClientArticleList {
  site: SiteSummary;
  total: ArticleList['total'];
  articles: ClientArticleListItem[];
}

export interface ClientOptions {
  /** The Content API's origin, e.g. `https://content.example.com` (with or without `/v1`). */
  baseUrl: string;
  /** The site's key (or a preview key, `pv_…`). */
  key: string;
  /** The fetch to use; the global one by default (pass one to add tags, timeouts or retries). */
  fetch?: typeof globalThis.fetch;
  /** Keeps ETags and bodies: later calls send If-None-Match and reuse the body on 304. */
  cache?: ResponseCache;
}

export interface ListFilters {
  kind?: Article['kind'];
  /** Only articles whose `updatedAt` is at or after this time. */
  updatedSince?: string | Date;
}

export interface ListOptions extends ListFilters {
  /** At most this many articles (1–1000); the whole list when not given. */
  limit?: number;
  offset?: number;
}

export interface ArticlesOptions extends ListFilters {
  /** Articles per request (1–999; default 100). */
  pageSize?: number;
  /** How often to start again when the list changes while it is paged (default 3). */
  maxRestarts?: number;
}

export interface QuireClient {
  /** One page of the list, newest first; `total` counts every article that matches the filters. */
  listArticles(options?: ListOptions): Promise<ClientArticleList>;
  /** Every article that matches the filters, paged for you (see paging.ts for what happens when the list changes meanwhile). */
  articles(options?: ArticlesOptions): AsyncGenerator<ClientArticleListItem, void, undefined>;
  /** One article, or null when the site has no (published, for a site key) article with this slug. */
  getArticle(slug: string): Promise<ClientArticle | null> /**
   * One answer of the change feed (GET /v1/changes): without `since`, the current state and a
   * cursor; with it, what changed after it, oldest first. Needs the site key, not a preview key.
   * An expired cursor throws QuireCursorExpiredError: call again without `since` to resync.
   */;
  changes(options?: ChangesOptions): Promise<ChangeFeed>;
  /**
   * Every answer of the change feed from `since` on, following cursors until caught up (the last
   * answer yielded has `more: false`). Apply each answer's `changes`, then keep its `cursor`.
   */
  followChanges(options?: ChangesOptions): AsyncGenerator<ChangeFeed, void, undefined>;
}

const MAX_LIMIT = 1000; // the API's, spec'd in the OpenAPI document

export function createClient(options: ClientOptions): QuireClient {
  const apiRoot = `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
  const http = { key: options.key, fetch: options.fetch ?? globalThis.fetch.bind(globalThis), cache: options.cache };

  async function listArticles(list: ListOptions = {}): Promise<ClientArticleList> {
    const params = new URLSearchParams();
    if (list.limit !== undefined) params.set('limit', String(list.limit));
    if (list.offset !== undefined && list.offset !== 0) params.set('offset', String(list.offset));
    if (list.kind !== undefined) params.set('kind', list.kind);
    if (list.updatedSince !== undefined) {
      params.set(
        'updatedSince',
        list.updatedSince instanceof Date
          ? list.updatedSince.toISOString().replace(/\.\d{3}Z$/, 'Z')
          : list.updatedSince,
      );
    }
    const query = params.size > 0 ? `?${params}` : '';
    return (await getJson(`${apiRoot}/articles${query}`, http)) as ClientArticleList;
  }

  const changes = async (opts: ChangesOptions = {}) =>
    (await getJson(`${apiRoot}/changes${changesQuery(opts)}`, http)) as ChangeFeed;

  return {
    listArticles,
    changes,
    followChanges: (opts: ChangesOptions = {}) => followFeed(changes, opts),
    articles(opts: ArticlesOptions = {}) {
      const pageSize = opts.pageSize ?? 100;
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize >= MAX_LIMIT)
        throw new RangeError(`pageSize must be a whole number from 1 to ${MAX_LIMIT - 1}`);
      const filters: ListFilters = {};
      if (opts.kind !== undefined) filters.kind = opts.kind;
      if (opts.updatedSince !== undefined) filters.updatedSince = opts.updatedSince;
      return everyItem((page) => listArticles({ ...filters, ...page }), pageSize, opts.maxRestarts ?? 3);
    },
    async getArticle(slug) {
      try {
        return (await getJson(`${apiRoot}/articles/${encodeURIComponent(slug)}`, http)) as ClientArticle;
      } catch (err) {
        if (err instanceof QuireApiError && err.code === 'ARTICLE_NOT_FOUND') return null;
        throw err;
      }
    },
  };
}
