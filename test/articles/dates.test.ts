// Which dates an article carries: front matter first, then its history, for published articles only.
import { describe, expect, it } from 'vitest';
import { articleDates, datesFromHistory, expiryNotAfterHistory } from '../../src/articles/dates.ts';
import { metaOf } from '../helpers/article-meta.ts';

const history = { publishedAt: '2025-01-01T00:00:00Z', updatedAt: '2025-02-01T00:00:00Z' };

describe('datesFromHistory', () => {
  it('asks the history of a published article for the dates its front matter lacks', () => {
    expect(datesFromHistory(metaOf('title: A\nstatus: published'))).toEqual({ publishedAt: true });
    expect(datesFromHistory(metaOf('title: A\nstatus: published\npublishedAt: 2026-01-01'))).toEqual({
      publishedAt: false,
    });
    expect(datesFromHistory(metaOf('title: A\nstatus: published\nupdatedAt: 2026-01-01'))).toEqual({
      publishedAt: true,
    });
  });

  it('reads no history for a draft, nor for an article dated in full', () => {
    expect(datesFromHistory(metaOf('title: A'))).toBeNull();
    expect(
      datesFromHistory(metaOf('title: A\nstatus: published\npublishedAt: 2026-01-01\nupdatedAt: 2026-01-02')),
    ).toBeNull();
  });
});

describe('articleDates', () => {
  it('takes each date from front matter when it is there, else from the history', () => {
    expect(articleDates(metaOf('title: A\nstatus: published'), history)).toEqual(history);
    expect(
      articleDates(metaOf('title: A\nstatus: published\npublishedAt: 2026-03-14T09:30:00+01:00'), history),
    ).toEqual({
      publishedAt: '2026-03-14T08:30:00Z',
      updatedAt: '2025-02-01T00:00:00Z',
    });
    expect(articleDates(metaOf('title: A\nstatus: published\nupdatedAt: 2026-03-14'), history)).toEqual({
      publishedAt: '2025-01-01T00:00:00Z',
      updatedAt: '2026-03-14T00:00:00Z',
    });
  });

  it('gives a draft only the dates of its front matter', () => {
    expect(articleDates(metaOf('title: A'), history)).toEqual({ publishedAt: null, updatedAt: null });
    expect(articleDates(metaOf('title: A\nupdatedAt: 2026-03-14'), history)).toEqual({
      publishedAt: null,
      updatedAt: '2026-03-14T00:00:00Z',
    });
  });

  it('leaves a date no one gives null', () => {
    expect(articleDates(metaOf('title: A\nstatus: published'), undefined)).toEqual({
      publishedAt: null,
      updatedAt: null,
    });
  });
});

describe('expiryNotAfterHistory', () => {
  it('names the first-published date from history that an expiry does not come after', () => {
    expect(expiryNotAfterHistory(metaOf('title: A\nstatus: published\nexpiresAt: 2025-01-01'), history)).toBe(
      '2025-01-01T00:00:00Z',
    );
    expect(expiryNotAfterHistory(metaOf('title: A\nstatus: published\nexpiresAt: 2024-06-01'), history)).toBe(
      '2025-01-01T00:00:00Z',
    );
  });

  it('is null for an expiry after it, without one, or against a publishedAt in front matter', () => {
    expect(expiryNotAfterHistory(metaOf('title: A\nstatus: published\nexpiresAt: 2025-01-02'), history)).toBeNull();
    expect(expiryNotAfterHistory(metaOf('title: A\nstatus: published'), history)).toBeNull();
    expect(
      expiryNotAfterHistory(
        metaOf('title: A\nstatus: published\npublishedAt: 2024-01-01\nexpiresAt: 2024-06-01'),
        history,
      ),
    ).toBeNull();
    expect(expiryNotAfterHistory(metaOf('title: A\nstatus: published\nexpiresAt: 2024-06-01'), undefined)).toBeNull();
  });
});
