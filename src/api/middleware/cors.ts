// CORS for a read-only API whose keys travel in a header or the query, never in cookies: any
// origin may read its answers. Made from one set of options: the headers every answer carries
// (`corsHeaders`) and the middleware that answers preflight requests. The headers go into the
// header record each answer is made with, once, rather than onto each answer as it leaves:
// setting a header on a made Response turns its record into a Headers object, the dearest
// step on the fast path.
import type { MiddlewareHandler } from 'hono';

export interface CorsOptions {
  /** Answer headers a script may read besides the safelisted ones (ETag, WWW-Authenticate). */
  exposeHeaders?: readonly string[];
  /** The methods the API answers; also its preflight's `Allow`. */
  allowMethods?: readonly string[];
  /** Request headers a script may send (Authorization, If-None-Match). */
  allowHeaders?: readonly string[];
  /** How long a browser may keep a preflight's answer, in seconds. */
  maxAge?: number;
}

/** An HTTP token (RFC 9110 5.6.2): what a header or method name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function tokens(name: string, values: readonly string[]): string {
  for (const v of values)
    if (!TOKEN.test(v)) throw new TypeError(`cors: ${name} must be header or method names, not ${JSON.stringify(v)}`);
  return values.join(', ');
}

/** The headers every answer carries: any origin, and what scripts may read. */
export function corsHeaders({ exposeHeaders = [] }: CorsOptions = {}): Readonly<Record<string, string>> {
  const expose = tokens('exposeHeaders', exposeHeaders);
  return Object.freeze({
    'access-control-allow-origin': '*',
    ...(expose ? { 'access-control-expose-headers': expose } : {}),
  });
}

/** Answers preflight (OPTIONS) requests with 204 and what the API allows; other requests go on. */
export const cors = (options: CorsOptions = {}): MiddlewareHandler => {
  const { allowMethods = ['GET', 'HEAD', 'OPTIONS'], allowHeaders = [], maxAge = 86_400 } = options;
  if (!Number.isInteger(maxAge) || maxAge < 0)
    throw new RangeError(`cors: maxAge must be a whole number of seconds, not ${maxAge}`);
  const methods = tokens('allowMethods', allowMethods);
  const preflight: Record<string, string> = {
    ...corsHeaders(options),
    'access-control-allow-methods': methods,
    ...(allowHeaders.length ? { 'access-control-allow-headers': tokens('allowHeaders', allowHeaders) } : {}),
    'access-control-max-age': String(maxAge),
    allow: methods,
  };
  return async function cors(c, next) {
    if (c.req.method !== 'OPTIONS') return next();
    return new Response(null, { status: 204, headers: preflight });
  };
};
