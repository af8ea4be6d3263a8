// Refusals as answers: every ApiError in the contract's one error shape, with the headers every
// error answer has; the one onError of an app that serves the API (a path's own pages may answer
// its refusals in their format: the admin's); and the answer for a path no route takes.
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { ApiError } from './api-error.ts';
import { ALLOW, CORS, JSON_TYPE } from './answer-headers.ts';
import { isReadOnlyApiPath } from './routes.ts';

/** A refusal in the one error shape, with the headers every error answer has. */
export function errorResponse(err: ApiError): Response {
  return new Response(err.body(), {
    status: err.status,
    headers: {
      'content-type': JSON_TYPE,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...CORS,
      ...err.headers,
    },
  });
}

/** Answers the refusals on the paths under `path` (an app mounted there) in that app's own format. */
export interface RefusalPages {
  path: string;
  render: (err: ApiError, c: Context) => Response | Promise<Response>;
}

/**
 * The onError of an app that serves the API: an ApiError as its answer (on a path of `pages`, as
 * that app renders it), anything else logged and answered 500 INTERNAL_ERROR.
 */
export const answerProblems = ({
  log = () => {},
  pages = [],
}: {
  log?: (line: string) => void;
  pages?: readonly RefusalPages[];
} = {}): ErrorHandler => {
  for (const p of pages)
    if (!p.path.startsWith('/') || p.path.endsWith('/'))
      throw new TypeError(`answerProblems: a page path is /name, not ${JSON.stringify(p.path)}`);
  return function answerProblems(err, c) {
    if (err instanceof ApiError) {
      const page = pages.find((p) => c.req.path === p.path || c.req.path.startsWith(`${p.path}/`));
      return page ? page.render(err, c) : errorResponse(err);
    }
    log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return errorResponse(new ApiError('INTERNAL_ERROR', 'the server failed to answer this request'));
  };
};

/** No route: 405 with Allow on one of the API's read-only paths (another method), else 404. */
export const noRoute: NotFoundHandler = function noRoute(c) {
  if (isReadOnlyApiPath(c.req.path)) {
    return errorResponse(
      new ApiError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed; this API is read-only`, { allow: ALLOW }),
    );
  }
  return errorResponse(new ApiError('ROUTE_NOT_FOUND', `no route for ${c.req.path}; see /openapi.json`));
};
