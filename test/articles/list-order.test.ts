// The list order: newest first by publishedAt, then updatedAt, then slug, independent of locale.
import { describe, expect, it } from 'vitest';
import { newestFirst } from '../../src/articles/list-order.ts';

const item = (slug: string, publishedAt: string | null, updatedAt: string | null = publishedAt) => ({
  slug,
  publishedAt,
  updatedAt,
});

describe('newestFirst', () => {
  it('orders by publishedAt, then updatedAt, newest first, undated last', () => {
    const items = [
      item('old', '2024-01-01T00:00:00Z'),
      item('undated', null),
      item('new', '2025-06-01T10:00:00Z'),
      item('same-day-later-edit', '2025-06-01T10:00:00Z', '2025-06-02T00:00:00Z'),
    ];
    expect(items.sort(newestFirst).map((i) => i.slug)).toEqual(['same-day-later-edit', 'new', 'old', 'undated']);
  });

  it('breaks ties by slug in code-unit order, where locale collation would ignore the hyphen', () => {
    const at = '2025-01-01T00:00:00Z';
    const items = [item('ab', at), item('a-c', at), item('a-b', at), item('a', at), item('b', at)];
    expect(items.sort(newestFirst).map((i) => i.slug)).toEqual(['a', 'a-b', 'a-c', 'ab', 'b']);
  });
});
