// The filtered list answers from the build's index exactly what filtering and sorting every
// item gave (the bytes of each response), and its work depends on the page, not the site.
import { describe, expect, it } from 'vitest';
import { createFilteredList } from '../../src/snapshot/filtered-list.ts';
import type { ListQuery } from '../../src/api/list-query.ts';
import { newestFirst } from '../../src/articles/list-order.ts';
import type { ArticleListItem } from '../../src/contract/article.ts';
import { makeListIndex, parseListIndex, type ListIndex } from '../../src/export/list-index.ts';
import { listBody, listItemSpans } from '../../src/export/list-body.ts';
import { hashBytes } from '../../src/export/content-hash.ts';
import { ARTICLE_KINDS } from '../../src/content/model.ts';
import { seeded } from '../helpers/seeded-random.ts';

const SITE = { name: 'Big "Site"', lang: 'en' };
type Item = { item: ArticleListItem; kind: string };

function randomSite(count: number, random: () => number) {
  // Few distinct dates, so ties and missing dates are common.
  const dates = Array.from({ length: 12 }, (_, i) => `2026-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:00:00Z`);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const items: Item[] = Array.from({ length: count }, (_, i) => ({
    kind: pick(random() < 0.1 ? ['news'] : ARTICLE_KINDS),
    item: {
      slug: `a-${i}`,
      title: `Title ${i} “quoted”`,
      metaDescription: random() < 0.5 ? null : `About ${i}`,
      excerpt: `Excerpt ${i}`,
      lang: 'en',
      publishedAt: random() < 0.1 ? null : pick(dates),
      updatedAt: random() < 0.1 ? null : pick(dates),
      imageUrl: null,
      imageAlt: null,
    },
  }));
  items.sort((a, b) => newestFirst(a.item, b.item));
  const json = items.map((i) => Buffer.from(JSON.stringify(i.item)));
  const bytes = listBody(SITE, json);
  const index = makeListIndex(
    hashBytes(bytes),
    items.map((i) => ({ kind: i.kind, updatedAt: i.item.updatedAt })),
    listItemSpans(SITE, json),
  );
  // Through the file's text and its check, as the server reads it.
  const parsed = parseListIndex(JSON.stringify(index), 'articles.index.json', {
    hash: hashBytes(bytes),
    bytes: bytes.length,
    count,
  });
  return { items, bytes, index: parsed, dates };
}

/** What the API answered before the index: filter and sort every item, then page. */
function naive(items: Item[], q: ListQuery): Buffer {
  const matching = items
    .filter(
      (a) =>
        (q.kind === null || a.kind === q.kind) &&
        (q.updatedSince === null || (a.item.updatedAt ?? '') >= q.updatedSince),
    )
    .map((a) => a.item)
    .sort(newestFirst);
  const page = matching.slice(q.offset, q.limit === null ? undefined : q.offset + q.limit);
  return Buffer.from(JSON.stringify({ site: SITE, total: matching.length, articles: page }));
}

describe('createFilteredList', () => {
  it('answers random queries byte for byte as filtering every item did', () => {
    const random = seeded(42);
    for (const count of [0, 1, 5, 300]) {
      const { items, bytes, index, dates } = randomSite(count, random);
      const list = createFilteredList(index, bytes);
      for (let n = 0; n < 400; n++) {
        const q: ListQuery = {
          kind: random() < 0.3 ? null : ARTICLE_KINDS[Math.floor(random() * ARTICLE_KINDS.length)]!,
          updatedSince:
            random() < 0.3
              ? null
              : random() < 0.7
                ? dates[Math.floor(random() * dates.length)]!
                : `2026-0${1 + Math.floor(random() * 9)}-15T12:00:00Z`,
          limit: random() < 0.3 ? null : 1 + Math.floor(random() * 20),
          offset: random() < 0.4 ? 0 : Math.floor(random() * (count + 5)),
        };
        const { total, items: page } = list.select(q);
        expect(Buffer.from(listBody(SITE, page, total)).toString(), JSON.stringify(q)).toBe(naive(items, q).toString());
      }
    }
  });

  it('touches a number of index entries set by the page, not by the site', () => {
    const random = seeded(3);
    const { bytes, index, dates } = randomSite(50_000, random);
    let reads = 0;
    const counted = <T>(xs: T[]): T[] =>
      new Proxy(xs, { get: (t, p, r) => (typeof p === 'string' && /^\d+$/.test(p) && reads++, Reflect.get(t, p, r)) });
    const watched: ListIndex = {
      ...index,
      spans: counted(index.spans),
      updatedAt: counted(index.updatedAt),
      byKind: Object.fromEntries(Object.entries(index.byKind).map(([k, v]) => [k, counted(v)])),
      byUpdate: Object.fromEntries(Object.entries(index.byUpdate).map(([k, v]) => [k, counted(v)])),
    };
    const list = createFilteredList(watched, bytes);
    for (const q of [
      { kind: 'news', updatedSince: null, limit: 1, offset: 0 },
      { kind: 'standard', updatedSince: dates[3]!, limit: 10, offset: 2000 },
      { kind: null, updatedSince: dates[5]!, limit: 10, offset: 20_000 },
      { kind: null, updatedSince: null, limit: 10, offset: 49_990 },
    ]) {
      reads = 0;
      const { total, items } = list.select(q);
      expect(total).toBeGreaterThan(items.length);
      expect(reads, JSON.stringify(q)).toBeLessThanOrEqual(10 * (q.limit ?? 0) + 64);
    }
  });
});

describe('parseListIndex', () => {
  const list = { hash: 'h', bytes: 100, count: 1 };
  const good: ListIndex = makeListIndex('h', [{ kind: 'news', updatedAt: null }], [10, 20]);
  it('accepts the index of the list it describes', () => {
    expect(parseListIndex(JSON.stringify(good), 'x.json', list)).toEqual(good);
  });
  it('refuses, naming the file, an index that does not fit the list', () => {
    expect(() => parseListIndex('{', 'site/articles.index.json', list)).toThrow(
      /^site\/articles\.index\.json: not JSON/,
    );
    expect(() => parseListIndex(JSON.stringify(good), 'x.json', { ...list, hash: 'other' })).toThrow(
      /x\.json: belongs to another articles\.json/,
    );
    expect(() => parseListIndex(JSON.stringify({ ...good, spans: [10, 200] }), 'x.json', list)).toThrow(/spans/);
    expect(() =>
      parseListIndex(JSON.stringify({ ...good, byKind: { ...good.byKind, news: [5] } }), 'x.json', list),
    ).toThrow(/byKind\.news/);
    expect(() =>
      parseListIndex(JSON.stringify({ ...good, byUpdate: { ...good.byUpdate, poems: [0] } }), 'x.json', list),
    ).toThrow(/unknown kind/);
  });
});
