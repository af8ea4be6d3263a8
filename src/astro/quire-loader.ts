// `quireLoader({baseUrl, key})`: an Astro content-layer loader that fills a collection with a
// site's published articles from the Content API, through `quire/client` (which pages by itself,
// so a site of any size is loaded whole). Each entry is the API's article (`GET
// /v1/articles/{slug}`), checked against the contract's own schema; its id is the slug.
// Entries whose article is no longer listed are removed, so a build never shows a withdrawn one.
//
// Astro's types are not imported (Quire does not depend on Astro): LoaderContext below names only
// what this loader uses, and Astro's context has all of it.
import { ArticleSchema, type Article } from '../contract/article.ts';
import { createClient, type ClientOptions, type ListFilters } from '../client/index.ts';

export interface QuireLoaderOptions extends Pick<ClientOptions, 'baseUrl' | 'key' | 'fetch'> {
  /** Only articles of this kind. */
  kind?: ListFilters['kind'];
}

/** The part of Astro's LoaderContext (astro/loaders) this loader uses. */
export interface LoaderContext {
  store: {
    set(entry: { id: string; data: Record<string, unknown>; digest?: string; rendered?: { html: string } }): boolean;
    keys(): string[];
    delete(id: string): void;
  };
  parseData<TData extends Record<string, unknown>>(props: { id: string; data: TData }): Promise<TData>;
  generateDigest(data: Record<string, unknown> | string): string;
  logger: { info(message: string): void };
}

export interface QuireLoader {
  name: 'quire-loader';
  schema: typeof ArticleSchema;
  load(context: LoaderContext): Promise<void>;
}

/** One request per article: a few at a time, so a large site loads in seconds, not one round trip after another. */
const ARTICLE_REQUESTS_AT_ONCE = 8;

async function eachAtMost<T>(limit: number, items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function quireLoader(options: QuireLoaderOptions): QuireLoader {
  const { kind, ...clientOptions } = options;
  if (!options.baseUrl || !options.key)
    throw new TypeError("quireLoader needs {baseUrl, key}: the Content API's URL and the site's key (`quire keys`)");
  return {
    name: 'quire-loader',
    schema: ArticleSchema,
    async load({ store, parseData, generateDigest, logger }) {
      const client = createClient(clientOptions);
      const slugs: string[] = [];
      for await (const item of client.articles(kind === undefined ? {} : { kind })) slugs.push(item.slug);
      const listed = new Set<string>();
      await eachAtMost(ARTICLE_REQUESTS_AT_ONCE, slugs, async (slug) => {
        const article = await client.getArticle(slug);
        if (article === null) return; // withdrawn between the list and this request
        listed.add(article.slug);
        const data: Article = await parseData({ id: article.slug, data: article });
        // `rendered` lets `render(entry)` give a <Content /> that injects `html` as received.
        store.set({ id: article.slug, data, digest: generateDigest(article), rendered: { html: article.html } });
      });
      for (const id of store.keys()) if (!listed.has(id)) store.delete(id);
      logger.info(`${listed.size} articles from Quire`);
    },
  };
}
