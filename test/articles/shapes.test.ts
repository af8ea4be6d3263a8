// The article body as the build makes it from front matter and what the build found.
import { describe, expect, it } from 'vitest';
import { articleBody, relatedArticles, toListItem, type BodyParts } from '../../src/articles/shapes.ts';
import { markSanitized } from '../../src/render/safe-html.ts';
import { metaOf } from '../helpers/article-meta.ts';

const parts = (yaml: string, more: Partial<BodyParts> = {}): BodyParts => ({
  meta: metaOf(yaml),
  siteLang: 'en',
  html: markSanitized('<p>Hi.</p>'),
  markdown: 'Hi.\n',
  imageFileUrl: null,
  related: [],
  author: null,
  dates: { publishedAt: '2025-01-01T00:00:00Z', updatedAt: '2025-02-01T00:00:00Z' },
  ...more,
});

describe('articleBody', () => {
  it('has the contract fields in the order the body is written (bodies are hashed as bytes)', () => {
    const body = articleBody(
      parts(
        'title: A\nslug: a-slug\nmetaDescription: Described.\nkind: news\nsourceUrl: https://example.com/src\nimageAlt: Alt',
      ),
    );
    expect(Object.keys(body)).toEqual([
      'slug',
      'title',
      'metaDescription',
      'lang',
      'html',
      'markdown',
      'imageUrl',
      'imageAlt',
      'publishedAt',
      'updatedAt',
      'kind',
      'sourceUrl',
      'related',
      'author',
    ]);
    expect(body).toMatchObject({
      slug: 'a-slug',
      title: 'A',
      metaDescription: 'Described.',
      lang: 'en',
      html: '<p>Hi.</p>',
      markdown: 'Hi.\n',
      imageUrl: null,
      imageAlt: 'Alt',
      kind: 'news',
      sourceUrl: 'https://example.com/src',
      related: [],
      author: null,
    });
    expect(body).toMatchObject({ publishedAt: '2025-01-01T00:00:00Z', updatedAt: '2025-02-01T00:00:00Z' });
  });

  it("takes the article's language over the site's", () => {
    expect(articleBody(parts('title: A\nlang: fr')).lang).toBe('fr');
  });

  it('takes an image URL from front matter as it is, and a file by its published URL', () => {
    expect(
      articleBody(parts('title: A\nimage: https://img.example.com/a.png', { imageFileUrl: 'ignored' })).imageUrl,
    ).toBe('https://img.example.com/a.png');
    expect(
      articleBody(parts('title: A\nimage: cover.png', { imageFileUrl: 'https://quire.example/assets/s/cover.1.png' }))
        .imageUrl,
    ).toBe('https://quire.example/assets/s/cover.1.png');
    expect(articleBody(parts('title: A\nimage: cover.png')).imageUrl).toBeNull();
  });

  it('names its author by name, bio and URL only', () => {
    const author = { id: 'ana', name: 'Ana', bio: null, url: 'https://ana.example' };
    expect(articleBody(parts('title: A\nauthor: ana', { author })).author).toEqual({
      name: 'Ana',
      bio: null,
      url: 'https://ana.example',
    });
  });

  it('makes the list item with the excerpt given', () => {
    const body = articleBody(parts('title: A\nmetaDescription: Described.'));
    expect(toListItem(body, 'Short.')).toEqual({
      slug: 'a',
      title: 'A',
      metaDescription: 'Described.',
      excerpt: 'Short.',
      lang: 'en',
      publishedAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-02-01T00:00:00Z',
      imageUrl: null,
      imageAlt: null,
    });
  });
});

describe('relatedArticles', () => {
  it('lists the published articles named, in the order given, by slug and title; itself and others left out', () => {
    const published = new Map([
      ['b', 'Bee'],
      ['c', 'Sea'],
      ['a', 'Self'],
    ]);
    const meta = metaOf('title: Self\nslug: a\nrelated: [c, draft-one, a, b]');
    expect(relatedArticles(meta, published)).toEqual([
      { slug: 'c', title: 'Sea' },
      { slug: 'b', title: 'Bee' },
    ]);
  });
});
