// `quire/client`: a typed client for the Content API. It runs wherever fetch does (Node, browsers,
// Workers): nothing here may import a Node built-in, zod or any other runtime part of Quire; the
// contract's types come in with `import type` only (test/client/portable.test.ts checks both).
export { createClient } from './client.ts';
export type {
  ArticlesOptions,
  ClientArticle,
  ClientArticleList,
  ClientArticleListItem,
  ClientOptions,
  ListFilters,
  ListOptions,
  PublicationStatus,
  QuireClient,
  WithStatus,
} from './client.ts';
export type { CachedResponse, ResponseCache } from './http.ts';
export type { ChangesOptions } from './changes.ts';
export {
  QuireApiError,
  QuireCursorExpiredError,
  QuireListChangedError,
  QuireNetworkError,
  isQuireError,
  type QuireError,
} from './errors.ts';
export type {
  Article,
  ArticleList,
  ArticleListItem,
  Author,
  RelatedArticle,
  SiteSummary,
} from '../contract/article.ts';
export type { ArticleChange, ChangeFeed, ChangeType } from '../contract/changes.ts';
export type { ApiErrorCode } from '../contract/error-codes.ts';
