// Which branch a request reads: `Quire-Ref: <branch>` or `?ref=<branch>` (a server that follows a
// repository with --previews builds each matching branch apart); none, the build it serves. A ref
// is input: given twice, or two different ways, it is refused; one that is not a plain branch name
// (letters, digits, `.`, `_`, `-`, `/`, at most 200) names no branch, and is never looked up.
import type { Context } from 'hono';
import { ApiError } from './api-error.ts';

export const REF_HEADER = 'Quire-Ref';
export const REF_PARAM = 'ref';

/** The ref a request names, as sent; null without one. QUERY_INVALID when it names two. */
export function refOf(c: Context): string | null {
  const header = c.req.header(REF_HEADER);
  const url = c.req.url;
  const query = url.includes('ref=') ? new URL(url).searchParams.getAll(REF_PARAM) : [];
  if (query.length > 1) throw new ApiError('QUERY_INVALID', '`ref` is given more than once');
  if (header !== undefined && query.length && query[0] !== header)
    throw new ApiError('QUERY_INVALID', '`ref` and the Quire-Ref header name different branches');
  return header ?? query[0] ?? null;
}

/** Whether `ref` could name a branch at all (the shape follow-source.ts accepts, loosely): others are not looked up. */
export const couldBeBranch = (ref: string): boolean => /^[A-Za-z0-9._/-]{1,200}$/.test(ref);
