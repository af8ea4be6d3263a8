// The typed client against a real Content API on loopback over a real build of 250 articles:
// paging, filters, ETag reuse, 404 → null and typed errors.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import {
  createClient,
  QuireApiError,
  QuireNetworkError,
  type CachedResponse,
  type ClientArticle,
  type ClientArticleList,
  type ClientArticleListItem,
} from '../../src/client/index.ts';
import type { Article, ArticleList, ArticleListItem } from '../../src/contract/article.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const COUNT = 250;

let p: TempProject;
let api: TestApi;
let key: string;

/** Article i: one a day from 2025-01-01, every fifth a news item. */
function writeArticle(i: number): void {
  const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const fields: Record<string, string> = {
    title: `Article ${i}`,
    status: 'published',
    publishedAt: day,
    updatedAt: day,
  };
  if (i % 5 === 0) Object.assign(fields, { kind: 'news', sourceUrl: 'https://source.example.net/x' });
  p.write(`big/articles/a-${i}.md`, article(fields, `Body ${i}.\n`));
}

async function build(): Promise<void> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
}

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'big');
  for (let i = 0; i < COUNT; i++) writeArticle(i);
  await build();
  api = await startTestApi(p);
  key = api.keyring.keyFor('big');
}, 120_000);

afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

/** A fetch that records every request's URL, If-None-Match and answer status. */
function recordingFetch() {
  const seen: { url: string; ifNoneMatch: string | null; status: number }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({ url: String(input), ifNoneMatch: new Headers(init?.headers).get('if-none-match'), status: res.status });
    return res;
  };
  return { seen, fetch: fetchFn };
}

const slugsNewestFirst = (n: number) => Array.from({ length: n }, (_, i) => `a-${n - 1 - i}`);

describe('createClient', () => {
  it('lists one page, typed, with the total before paging', async () => {
    const client = createClient({ baseUrl: api.url, key });
    const page = await client.listArticles({ limit: 10, offset: 5 });
    expect(page.total).toBe(COUNT);
    expect(page.site.name).toBe('big');
    expect(page.articles.map((a) => a.slug)).toEqual(slugsNewestFirst(COUNT).slice(5, 15));
  });

  it('filters by kind and updatedSince (a string or a Date)', async () => {
    const client = createClient({ baseUrl: `${api.url}/v1/`, key });
    const news = await client.listArticles({ kind: 'news' });
    expect(news.total).toBe(COUNT / 5);
    expect(news.articles.every((a) => Number(a.slug.slice(2)) % 5 === 0)).toBe(true);
    const since = '2025-09-01T00:00:00Z'; // day 243 from 2025-01-01
    const recent = await client.listArticles({ updatedSince: since });
    expect(recent.articles.map((a) => a.slug)).toEqual(slugsNewestFirst(COUNT).slice(0, COUNT - 243));
    expect(await client.listArticles({ updatedSince: new Date(since) })).toEqual(recent);
    const recentNews = [];
    for await (const a of client.articles({ kind: 'news', updatedSince: since, pageSize: 3 })) recentNews.push(a.slug);
    expect(recentNews).toEqual(recent.articles.map((a) => a.slug).filter((s) => Number(s.slice(2)) % 5 === 0));
  });

  it('pages through every article by itself: all of them, in order, none twice', async () => {
    const { seen, fetch } = recordingFetch();
    const client = createClient({ baseUrl: api.url, key, fetch });
    const slugs: string[] = [];
    for await (const a of client.articles({ pageSize: 100 })) slugs.push(a.slug);
    expect(slugs).toEqual(slugsNewestFirst(COUNT));
    expect(seen.length).toBe(3);
    expect(seen.every((r) => r.status === 200)).toBe(true);
  });

  it('sends If-None-Match from its cache and returns the cached body on 304', async () => {
    const { seen, fetch } = recordingFetch();
    const cache = new Map<string, CachedResponse>();
    const client = createClient({ baseUrl: api.url, key, fetch, cache });
    const first = await client.getArticle('a-7');
    const again = await client.getArticle('a-7');
    const list = await client.listArticles({ limit: 2 });
    const listAgain = await client.listArticles({ limit: 2 });
    expect(seen.map((r) => r.status)).toEqual([200, 304, 200, 304]);
    expect(seen[1]!.ifNoneMatch).toBe(cache.get(`${api.url}/v1/articles/a-7`)!.etag);
    expect(seen[0]!.ifNoneMatch).toBeNull();
    expect(again).toEqual(first);
    expect(again!.title).toBe('Article 7');
    expect(listAgain).toEqual(list);
  });

  it('answers null for an unknown slug, and a typed error for a wrong key', async () => {
    const client = createClient({ baseUrl: api.url, key });
    expect(await client.getArticle('no-such-article')).toBeNull();
    const wrong = createClient({ baseUrl: api.url, key: `${key.slice(0, -2)}xx` });
    const err = await wrong.getArticle('a-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuireApiError);
    expect(err).toMatchObject({ kind: 'api', code: 'API_KEY_INVALID', status: 401 });
    await expect(wrong.articles().next()).rejects.toMatchObject({ code: 'API_KEY_INVALID' });
    const bad = await client.listArticles({ limit: 5000 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'QUERY_INVALID', status: 400 });
  });

  it('carries Retry-After on 503 CONTENT_UNAVAILABLE, and names network failures as such', async () => {
    const empty = fs.mkdtempSync(`${p.root}/empty-dist-`);
    const noBuild = await startTestApi({ distDir: empty, stateDir: p.stateDir });
    try {
      const err = await createClient({ baseUrl: noBuild.url, key })
        .listArticles()
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'CONTENT_UNAVAILABLE', status: 503, retryAfter: 5 });
    } finally {
      await noBuild.close();
    }
    const err = await createClient({ baseUrl: noBuild.url, key })
      .getArticle('a-1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuireNetworkError);
    expect(err).toMatchObject({ kind: 'network' });
  });

  it('returns the types the contract infers', () => {
    const client = createClient({ baseUrl: api.url, key });
    expectTypeOf(client.getArticle).returns.resolves.toEqualTypeOf<ClientArticle | null>();
    // The contract's types, with the optional `status` of a preview key's answers: each is the other.
    expectTypeOf<ClientArticle>().toExtend<Article>();
    expectTypeOf<Article>().toExtend<ClientArticle>();
    expectTypeOf<ClientArticleListItem>().toExtend<ArticleListItem>();
    expectTypeOf<ArticleListItem>().toExtend<ClientArticleListItem>();
    expectTypeOf<ClientArticleList>().toExtend<ArticleList>();
    expectTypeOf<ArticleList>().toExtend<ClientArticleList>();
    expectTypeOf<ClientArticle['title']>().toEqualTypeOf<Article['title']>();
    expectTypeOf<ClientArticle['author']>().toEqualTypeOf<Article['author']>();
    expectTypeOf<ClientArticleListItem['publishedAt']>().toEqualTypeOf<ArticleListItem['publishedAt']>();
    expectTypeOf<ClientArticle['status']>().toEqualTypeOf<'draft' | 'scheduled' | 'published' | undefined>();
    expectTypeOf(client.listArticles).returns.resolves.toEqualTypeOf<ClientArticleList>();
    expectTypeOf(client.articles).returns.toExtend<AsyncIterable<ClientArticleListItem>>();
  });

  // Last: it changes the build under the server.
  it('neither skips nor repeats when the list changes while it pages', async () => {
    let rebuilt = false;
    const client = createClient({
      baseUrl: api.url,
      key,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!rebuilt) {
          // After the first page: one article newer than all, and one of the next page withdrawn.
          rebuilt = true;
          writeArticle(COUNT);
          fs.rmSync(`${p.contentDir}/big/articles/a-${COUNT - 120}.md`);
          await build();
          api.store.reload();
        }
        return res;
      },
    });
    const slugs: string[] = [];
    for await (const a of client.articles({ pageSize: 100 })) slugs.push(a.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    const now = await createClient({ baseUrl: api.url, key }).listArticles();
    expect(now.total).toBe(COUNT);
    for (const a of now.articles) expect(slugs).toContain(a.slug);
    expect(slugs).toContain(`a-${COUNT}`);
    expect(slugs).not.toContain(`a-${COUNT - 120}`);
  }, 120_000);
});
