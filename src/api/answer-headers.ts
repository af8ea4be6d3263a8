// The headers the Content API's answers share, made once: its CORS (any origin; ETag and
// WWW-Authenticate readable by scripts), its methods, its JSON type.
import { corsHeaders, type CorsOptions } from './middleware/cors.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

export const API_CORS: CorsOptions = {
  exposeHeaders: ['ETag', 'WWW-Authenticate'],
  allowMethods: ['GET', 'HEAD', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'If-None-Match', 'Quire-Ref'],
  maxAge: 86_400,
};

export const CORS = corsHeaders(API_CORS);

/** What another method on one of the API's paths is told (405). */
export const ALLOW = API_CORS.allowMethods!.join(', ');

/** Every answer of the API besides its own type, cache and ETag headers. */
export const ANSWER_HEADERS = Object.freeze({ 'x-content-type-options': 'nosniff', ...CORS });
