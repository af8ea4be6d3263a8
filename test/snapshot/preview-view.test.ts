// What a preview key sees of a site at an instant (src/snapshot/preview-view.ts): drafts and
// scheduled articles beside the live ones, each with its status (and expiresAt, where set), in
// the list's order; expired ones withdrawn; the list, its ETag and its filtered pages made anew.
// The site is assembled from files made by the export format's own modules.
import { describe, expect, it } from 'vitest';
import { hashBytes } from '../../src/export/content-hash.ts';
import { articleFile, listFile, listIndexFile } from '../../src/export/layout.ts';
import { listBody, listItemSpans } from '../../src/export/list-body.ts';
import { makeListIndex } from '../../src/export/list-index.ts';
import type { ManifestArticle, ManifestSite } from '../../src/export/manifest.ts';
import type { PreviewDraft } from '../../src/export/preview-tree.ts';
import { previewAt, withFields } from '../../src/snapshot/preview-view.ts';
import { assembleSite, parseBody, type Draft } from '../../src/snapshot/snapshot-reader.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NOW = Date.parse('2026-05-01T12:00:00Z');
const summary = { name: 'One', lang: 'en' };

interface Spec {
  slug: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  expiresAt?: string;
}
// The build's list order: newest published first.
const published: Spec[] = [
  { slug: 'later', kind: 'standard', publishedAt: '2026-06-01T00:00:00Z', updatedAt: '2026-06-01T00:00:00Z' },
  { slug: 'live', kind: 'news', publishedAt: '2026-04-01T00:00:00Z', updatedAt: '2026-04-20T00:00:00Z' },
  {
    slug: 'ending',
    kind: 'standard',
    publishedAt: '2026-03-01T00:00:00Z',
    updatedAt: null,
    expiresAt: '2026-07-01T00:00:00Z',
  },
  {
    slug: 'old',
    kind: 'standard',
    publishedAt: '2026-01-01T00:00:00Z',
    updatedAt: null,
    expiresAt: '2026-02-01T00:00:00Z',
  },
];
const draftSpecs: Spec[] = [
  { slug: 'plan', kind: 'standard', publishedAt: null, updatedAt: null },
  { slug: 'idea', kind: 'news', publishedAt: '2026-05-15T00:00:00Z', updatedAt: '2026-04-25T00:00:00Z' },
];
const itemOf = (s: Spec) =>
  encoder.encode(
    JSON.stringify({ slug: s.slug, title: s.slug.toUpperCase(), publishedAt: s.publishedAt, updatedAt: s.updatedAt }),
  );
const bodyOf = (s: Spec) =>
  encoder.encode(JSON.stringify({ slug: s.slug, title: s.slug.toUpperCase(), html: `<p>${s.slug}</p>` }));

/** The site as a reader assembles it from a build's files. */
function builtSite() {
  const items = published.map(itemOf);
  const list = listBody(summary, items);
  const listHash = hashBytes(list);
  const index = makeListIndex(listHash, published, listItemSpans(summary, items));
  const entry = (s: Spec): ManifestArticle => ({
    file: `${s.slug}.md`,
    sourceHash: 's',
    inputKey: 'k',
    bodyHash: hashBytes(bodyOf(s)),
    payloadHash: 'p',
    kind: s.kind,
    publishedAt: s.publishedAt,
    updatedAt: s.updatedAt,
    ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}),
    images: [],
  });
  const m: ManifestSite = {
    ...summary,
    url: 'https://one.example.com',
    articlePath: '/{slug}',
    listHash,
    articles: Object.fromEntries(published.map((s) => [s.slug, entry(s)])),
    images: {},
  };
  const files = new Map<string, Uint8Array>([
    [listFile('one'), list],
    [listIndexFile('one'), encoder.encode(JSON.stringify(index))],
    ...published.map((s) => [articleFile('one', s.slug), bodyOf(s)] as [string, Uint8Array]),
  ]);
  const site = assembleSite('one', m, { read: (key) => files.get(key)!, name: (key) => key });
  return { site, m };
}

const drafts = new Map<string, Draft>(
  draftSpecs.map((s) => {
    const entry: PreviewDraft = {
      file: `${s.slug}.md`,
      sourceHash: 's',
      inputKey: 'k',
      bodyHash: hashBytes(bodyOf(s)),
      itemHash: hashBytes(itemOf(s)),
      kind: s.kind,
      publishedAt: s.publishedAt,
      updatedAt: s.updatedAt,
      images: [],
    };
    return [s.slug, { entry, item: itemOf(s), body: bodyOf(s) }];
  }),
);

describe("adding fields to a JSON object's bytes", () => {
  it('puts them at its end, every other byte as it was', () => {
    expect(decoder.decode(withFields(encoder.encode('{"a":1}'), { status: 'draft' }))).toBe('{"a":1,"status":"draft"}');
    expect(
      decoder.decode(
        withFields(encoder.encode('{"t":"Grüße"}'), { status: 'published', expiresAt: '2026-07-01T00:00:00Z' }),
      ),
    ).toBe('{"t":"Grüße","status":"published","expiresAt":"2026-07-01T00:00:00Z"}');
    expect(decoder.decode(withFields(encoder.encode('{"a":1}'), { q: 'say "hi"' }))).toBe('{"a":1,"q":"say \\"hi\\""}');
  });

  it('refuses bytes that are not an object', () => {
    expect(() => withFields(encoder.encode('[1]'), { status: 'draft' })).toThrow('not a JSON object');
  });
});

describe('a site as a preview key sees it', () => {
  const { site, m } = builtSite();
  const view = previewAt(site, m, drafts, NOW);
  const listed = () =>
    (parseBody(view.list) as { total: number; articles: { slug: string; status: string; expiresAt?: string }[] })
      .articles;

  it('lists drafts and scheduled articles beside the live ones, newest first, undated drafts last; expired ones not at all', () => {
    expect(listed().map((a) => `${a.slug}:${a.status}`)).toEqual([
      'later:scheduled',
      'idea:draft',
      'live:published',
      'ending:published',
      'plan:draft',
    ]);
    expect((parseBody(view.list) as { total: number }).total).toBe(5);
    expect(view.items.map((i) => [i.item.slug, i.kind])).toEqual([
      ['later', 'standard'],
      ['idea', 'news'],
      ['live', 'news'],
      ['ending', 'standard'],
      ['plan', 'standard'],
    ]);
    expect(view.articles.has('old')).toBe(false);
  });

  it('marks each item and body with its status, and its expiresAt where it has one', () => {
    expect(listed().find((a) => a.slug === 'ending')).toMatchObject({
      status: 'published',
      expiresAt: '2026-07-01T00:00:00Z',
    });
    expect(listed().find((a) => a.slug === 'live')).not.toHaveProperty('expiresAt');
    expect(parseBody(view.articles.get('plan')!)).toEqual({
      slug: 'plan',
      title: 'PLAN',
      html: '<p>plan</p>',
      status: 'draft',
    });
    expect(parseBody(view.articles.get('later')!)).toMatchObject({ status: 'scheduled' });
    expect(parseBody(view.articles.get('ending')!)).toMatchObject({
      status: 'published',
      expiresAt: '2026-07-01T00:00:00Z',
    });
  });

  it('gives every remade body and the list the ETag of their bytes, and leaves compressed variants to the API', () => {
    expect(view.list.etag).toBe(`"${hashBytes(view.list.bytes)}"`);
    expect(view.list.etag).not.toBe(site.list.etag);
    expect(view.list.encoded).toBeUndefined();
    for (const [slug, body] of view.articles) expect(body.etag, slug).toBe(`"${hashBytes(body.bytes)}"`);
  });

  it("answers filtered and paged lists over the preview's own items", () => {
    const slugs = (q: Partial<{ kind: string; updatedSince: string; limit: number; offset: number }>) => {
      const page = view.filtered.select({
        kind: q.kind ?? null,
        updatedSince: q.updatedSince ?? null,
        limit: q.limit ?? null,
        offset: q.offset ?? 0,
      });
      return {
        total: page.total,
        slugs: page.items.map((b) => (JSON.parse(decoder.decode(b)) as { slug: string; status: string }).slug),
      };
    };
    expect(slugs({ kind: 'news' })).toEqual({ total: 2, slugs: ['idea', 'live'] });
    expect(slugs({ updatedSince: '2026-04-21T00:00:00Z' })).toEqual({ total: 2, slugs: ['later', 'idea'] });
    expect(slugs({ limit: 2, offset: 2 })).toEqual({ total: 5, slugs: ['live', 'ending'] });
  });

  it('at a later instant, follows the schedule: the scheduled is published, the expiring withdrawn', () => {
    const later = previewAt(site, m, drafts, Date.parse('2026-07-01T00:00:00Z'));
    expect(
      (parseBody(later.list) as { articles: { slug: string; status: string }[] }).articles.map(
        (a) => `${a.slug}:${a.status}`,
      ),
    ).toEqual(['later:published', 'idea:draft', 'live:published', 'plan:draft']);
  });

  it('refuses a list no build wrote', () => {
    expect(() =>
      previewAt({ ...site, list: { bytes: encoder.encode('{"not":"a list"}'), etag: '"x"' } }, m, drafts, NOW),
    ).toThrow('the list of site "one" is not one a build wrote');
  });
});
