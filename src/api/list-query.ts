// Optional list parameters beyond the spec: limit, offset, kind, updatedSince. Without any of
// them the list is exactly the specified one; `total` counts what matches before paging.
import { ARTICLE_KINDS } from '../content/model.ts';
import { parseContentDate } from '../content/dates.ts';
import type { ListFilter } from '../snapshot/filtered-list.ts';
import { ApiError } from './api-error.ts';

export const MAX_LIMIT = 1000;

export type ListQuery = ListFilter;

export const isPlainList = (q: ListQuery) =>
  q.limit === null && q.offset === 0 && q.kind === null && q.updatedSince === null;

const invalid = (message: string) => new ApiError('QUERY_INVALID', message);

function wholeNumber(name: string, value: string, min: number, max: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid(`\`${name}\` must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/** A parameter given at most once (null when not given); twice is QUERY_INVALID. */
export function oneParam(params: URLSearchParams, name: string): string | null {
  const all = params.getAll(name);
  if (all.length > 1) throw invalid(`\`${name}\` is given more than once`);
  return all[0] ?? null;
}

export function parseListQuery(params: URLSearchParams): ListQuery {
  const one = (name: string) => oneParam(params, name);
  const limit = one('limit');
  const offset = one('offset');
  const kind = one('kind');
  const since = one('updatedSince');
  if (kind !== null && !(ARTICLE_KINDS as readonly string[]).includes(kind)) {
    throw invalid(`\`kind\` must be one of: ${ARTICLE_KINDS.join(', ')}`);
  }
  let updatedSince: string | null = null;
  if (since !== null) {
    updatedSince = /^\d{4}-\d{2}-\d{2}/.test(since) ? parseContentDate(since) : null;
    if (updatedSince === null)
      throw invalid('`updatedSince` must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z');
  }
  return {
    limit: limit === null ? null : wholeNumber('limit', limit, 1, MAX_LIMIT),
    offset: offset === null ? 0 : wholeNumber('offset', offset, 0, 1_000_000_000),
    kind,
    updatedSince,
  };
}
