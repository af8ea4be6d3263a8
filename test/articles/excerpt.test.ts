// Which excerpt a list item carries: front matter, then the body's, then metaDescription.
import { describe, expect, it } from 'vitest';
import { chooseExcerpt } from '../../src/articles/excerpt.ts';
import { metaOf } from '../helpers/article-meta.ts';

describe('chooseExcerpt', () => {
  it('takes `excerpt` from front matter over the body and metaDescription', () => {
    expect(chooseExcerpt(metaOf('title: A\nexcerpt: Written.\nmetaDescription: Described.'), 'From the body.')).toBe(
      'Written.',
    );
  });

  it('takes the excerpt derived from the body when front matter has none', () => {
    expect(chooseExcerpt(metaOf('title: A\nmetaDescription: Described.'), 'From the body.')).toBe('From the body.');
  });

  it('falls back to metaDescription for a body without a paragraph of text, then to nothing', () => {
    expect(chooseExcerpt(metaOf('title: A\nmetaDescription: Described.'), '')).toBe('Described.');
    expect(chooseExcerpt(metaOf('title: A'), '')).toBe('');
  });

  it('reads an empty `excerpt:` in front matter as none', () => {
    expect(chooseExcerpt(metaOf('title: A\nexcerpt: ""'), 'From the body.')).toBe('From the body.');
  });
});
