// Filtered lists on a large site, in process: the CPU one request costs, answered from the build's
// list index (what the server does) next to filtering and sorting every parsed item (what it did
// before the index). The site is synthetic: list items of the API's shape, no rendering.
//   npm run bench -- --only lists
import { createFilteredList } from '../../src/snapshot/filtered-list.ts';
import type { ListQuery } from '../../src/api/list-query.ts';
import { newestFirst } from '../../src/articles/list-order.ts';
import type { ArticleListItem } from '../../src/contract/article.ts';
import { makeListIndex } from '../../src/export/list-index.ts';
import { listBody, listItemSpans } from '../../src/export/list-body.ts';
import { hashBytes } from '../../src/export/content-hash.ts';
import { ARTICLE_KINDS } from '../../src/content/model.ts';
import { median } from './build.ts';

export interface ListRow {
  query: string;
  indexUs: number;
  scanUs: number;
}

const SITE = { name: 'Bench', lang: 'en' };

export function benchLists(count = 100_000): ListRow[] {
  const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString().replace('.000Z', 'Z');
  const items = Array.from({ length: count }, (_, i) => ({
    kind: ARTICLE_KINDS[i % 7 === 0 ? 3 : i % 3]!,
    item: {
      slug: `article-${i}`,
      title: `Article ${i}`,
      metaDescription: null,
      excerpt: 'An excerpt of a few words, as the list carries.',
      lang: 'en',
      publishedAt: day(i),
      updatedAt: day(i + (i % 50) * 24),
      imageUrl: null,
      imageAlt: null,
    } as ArticleListItem,
  }));
  items.sort((a, b) => newestFirst(a.item, b.item));
  const json = items.map((i) => Buffer.from(JSON.stringify(i.item)));
  const bytes = listBody(SITE, json);
  const index = makeListIndex(
    hashBytes(bytes),
    items.map((i) => ({ kind: i.kind, updatedAt: i.item.updatedAt })),
    listItemSpans(SITE, json),
  );
  const list = createFilteredList(JSON.parse(JSON.stringify(index)), bytes);
  const since = day(count - 2000);
  const queries: [string, ListQuery][] = [
    ['?kind=news&limit=1', { kind: 'news', updatedSince: null, limit: 1, offset: 0 }],
    ['?kind=standard&limit=20&offset=5000', { kind: 'standard', updatedSince: null, limit: 20, offset: 5000 }],
    [`?updatedSince=${since}&limit=20`, { kind: null, updatedSince: since, limit: 20, offset: 0 }],
    [
      `?kind=youtube&updatedSince=2020-06-01T00:00:00Z&limit=20&offset=1000`,
      { kind: 'youtube', updatedSince: '2020-06-01T00:00:00Z', limit: 20, offset: 1000 },
    ],
  ];
  const time = (fn: () => unknown, times: number) => {
    const runs: number[] = [];
    for (let r = 0; r < times; r++) {
      const start = process.hrtime.bigint();
      fn();
      runs.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return median(runs);
  };
  const byIndex = (q: ListQuery) => () => {
    const { total, items: page } = list.select(q);
    return hashBytes(listBody(SITE, page, total));
  };
  const byScan = (q: ListQuery) => () => {
    const matching = items
      .filter(
        (a) =>
          (q.kind === null || a.kind === q.kind) &&
          (q.updatedSince === null || (a.item.updatedAt ?? '') >= q.updatedSince),
      )
      .map((a) => a.item)
      .sort(newestFirst);
    const page = matching.slice(q.offset, q.limit === null ? undefined : q.offset + q.limit);
    return hashBytes(JSON.stringify({ site: SITE, total: matching.length, articles: page }));
  };
  return queries.map(([name, q]) => ({ query: name, indexUs: time(byIndex(q), 2001), scanUs: time(byScan(q), 21) }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of benchLists())
    console.log(`| ${r.query} | ${r.indexUs.toFixed(1)} µs | ${(r.scanUs / 1000).toFixed(1)} ms |`);
}
