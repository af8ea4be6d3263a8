// `quire/astro`: the Astro content loader. Runs where Astro's build runs; of Quire it takes the
// client and the contract's article schema (zod, Quire's own dependency).
export { quireLoader } from './quire-loader.ts';
export type { LoaderContext, QuireLoader, QuireLoaderOptions } from './quire-loader.ts';
export type { Article, Author } from '../contract/article.ts';
