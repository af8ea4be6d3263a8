// Filtered lists over a real build and a real server: every answer is byte for byte what
// filtering and sorting every item gives, and no request walks the site's items.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestFirst } from '../../src/articles/list-order.ts';
import type { ArticleListItem } from '../../src/contract/article.ts';
import { buildExport } from '../../src/compile/build.ts';
import { ARTICLE_KINDS } from '../../src/content/model.ts';
import { startTestApi, type TestApi } from '../helpers/api-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { seeded } from '../helpers/seeded-random.ts';

const COUNT = 60;
const DATES = [
  '2026-01-05T00:00:00Z',
  '2026-02-10T08:30:00Z',
  '2026-02-10T08:30:00Z',
  '2026-03-01T00:00:00Z',
  '2026-04-20T16:00:00Z',
];

let p: TempProject;
let api: TestApi;
let key: string;
let all: { list: { site: unknown; articles: ArticleListItem[] }; kinds: Map<string, string> };

beforeAll(async () => {
  const random = seeded(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  p = createTempProject();
  writeSite(p, 'big');
  for (let i = 0; i < COUNT; i++) {
    const kind = pick(ARTICLE_KINDS);
    const fields: Record<string, string> = {
      title: `Article ${i}`,
      status: 'published',
      kind,
      publishedAt: pick(DATES),
      updatedAt: pick(DATES),
    };
    if (kind === 'youtube' || kind === 'news') fields.sourceUrl = 'https://source.example.net/x';
    p.write(`big/articles/a-${i}.md`, article(fields, `Body ${i}.\n`));
  }
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  api = await startTestApi(p);
  key = api.keyring.keyFor('big');
  loadExpectations();
}, 60_000);

/** The full list and kinds as built, and a served snapshot whose parsed items no request may walk. */
function loadExpectations() {
  const manifest = JSON.parse(fs.readFileSync(path.join(p.distDir, 'manifest.json'), 'utf8'));
  all = {
    list: JSON.parse(fs.readFileSync(path.join(p.distDir, 'big', 'articles.json'), 'utf8')),
    kinds: new Map(
      Object.entries(manifest.sites.big.articles).map(([slug, a]) => [slug, (a as { kind: string }).kind]),
    ),
  };
  const site = api.store.current()!.sites.get('big')!;
  site.items = new Proxy(site.items, {
    get: () => {
      throw new Error('a request walked every item');
    },
  });
}

afterAll(async () => {
  await api?.close();
  p?.cleanup();
});

async function checkRandomQueries(seed: number, count: number) {
  const random = seeded(seed);
  for (let n = 0; n < count; n++) {
    const q = {
      kind: random() < 0.3 ? null : ARTICLE_KINDS[Math.floor(random() * ARTICLE_KINDS.length)]!,
      updatedSince: random() < 0.4 ? null : DATES[Math.floor(random() * DATES.length)]!,
      limit: random() < 0.3 ? null : 1 + Math.floor(random() * 15),
      offset: random() < 0.4 ? null : Math.floor(random() * (COUNT + 3)),
    };
    const params = new URLSearchParams(
      Object.entries(q).flatMap(([k, v]): [string, string][] => (v === null ? [] : [[k, String(v)]])),
    );
    if ([...params].length === 0) params.set('offset', '0');
    const res = await fetch(`${api.url}/v1/articles?${params}`, { headers: { authorization: `Bearer ${key}` } });
    const matching = all.list.articles
      .filter(
        (a) =>
          (q.kind === null || all.kinds.get(a.slug) === q.kind) &&
          (q.updatedSince === null || (a.updatedAt ?? '') >= q.updatedSince),
      )
      .sort(newestFirst);
    const offset = q.offset ?? 0;
    const page = matching.slice(offset, q.limit === null ? undefined : offset + q.limit);
    expect(res.status, params.toString()).toBe(200);
    expect(await res.text(), params.toString()).toBe(
      JSON.stringify({ site: all.list.site, total: matching.length, articles: page }),
    );
  }
}

describe('GET /v1/articles with filters, over a real build', () => {
  it('answers random queries byte for byte as filtering and sorting every item does, without walking the items', async () => {
    await checkRandomQueries(5, 150);
  });

  it('stays exact after a rebuild that changes kinds, dates and the set of articles', async () => {
    p.write(
      'big/articles/a-0.md',
      article(
        {
          title: 'Article 0, now news',
          status: 'published',
          kind: 'news',
          sourceUrl: 'https://source.example.net/y',
          publishedAt: DATES[4]!,
          updatedAt: DATES[0]!,
        },
        'Changed.\n',
      ),
    );
    p.write('big/articles/a-1.md', article({ title: 'Article 1, withdrawn', status: 'draft' }));
    p.write(
      'big/articles/new.md',
      article({
        title: 'A new one',
        status: 'published',
        kind: 'programmatic',
        publishedAt: DATES[1]!,
        updatedAt: DATES[4]!,
      }),
    );
    const result = await buildExport({
      contentDir: p.contentDir,
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://127.0.0.1',
    });
    expect(result.ok).toBe(true);
    expect(api.store.reload()).toBe(true);
    loadExpectations();
    expect(all.kinds.get('a-0')).toBe('news');
    await checkRandomQueries(6, 100);
  });
});
