// Every path the server answers, in one table: createApiApp registers its routes from it, the
// other apps are mounted at its mount paths, a request's metric label is the pattern its path
// falls under (a fixed, small set, so a slug, site, asset name or random path never becomes a
// label value), and another method on one of the Content API's read-only paths is answered 405.
import { ASSET_ROUTE, isAssetPath } from '../export/layout.ts';

/** The Content API's own paths (Hono syntax): GET, HEAD and OPTIONS only. */
export const API_ROUTES = {
  articles: '/v1/articles',
  article: '/v1/articles/:slug',
  changes: '/v1/changes',
  asset: ASSET_ROUTE,
  openapi: '/openapi.json',
  openapiV1: '/v1/openapi.json',
  llms: '/llms.txt',
  llmsV1: '/v1/llms.txt',
} as const;

/** Served by the same app beside them: the service document and health. */
export const SERVICE_ROUTES = {
  root: '/',
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: '/metrics',
} as const;

/** Where the other apps are mounted; each is one label, `<path>/*`. */
export const MOUNTS = {
  admin: '/admin',
  hooks: '/hooks',
} as const;

interface RouteMatcher {
  label: string;
  matches(path: string): boolean;
}

/** `:name` is one segment, `:name{re}` what `re` matches (as Hono reads them); the label drops the `{re}`. */
function matcherOf(route: string): RouteMatcher {
  const label = route.replace(/\{[^}]*\}/g, '');
  // The images' space is wider than the route: a path in it that names no image is still /assets/….
  if (route === ASSET_ROUTE) return { label, matches: isAssetPath };
  if (!route.includes(':')) return { label, matches: (path) => path === route };
  const source = route
    .split('/')
    .map((segment) => {
      const param = /^:\w+(?:\{(.+)\})?$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return param[1] ? `(?:${param[1]})` : '[^/]+';
    })
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return { label, matches: (path) => pattern.test(path) };
}

const API_MATCHERS = Object.values(API_ROUTES).map(matcherOf);
const EXACT = new Set<string>(
  [...Object.values(API_ROUTES), ...Object.values(SERVICE_ROUTES)].filter((r) => !r.includes(':')),
);
const WITH_PARAMS = [...Object.values(API_ROUTES), ...Object.values(SERVICE_ROUTES)]
  .filter((r) => r.includes(':'))
  .map(matcherOf);

/** The route pattern a request path (without query) falls under, for metric labels; `unmatched` when none. */
export function routePattern(path: string): string {
  if (EXACT.has(path)) return path;
  for (const m of WITH_PARAMS) if (m.matches(path)) return m.label;
  for (const mount of Object.values(MOUNTS)) if (path === mount || path.startsWith(`${mount}/`)) return `${mount}/*`;
  return 'unmatched';
}

/** Whether a path is one of the Content API's read-only ones (another method on it is 405, not 404). */
export function isReadOnlyApiPath(path: string): boolean {
  return API_MATCHERS.some((m) => m.matches(path));
}
