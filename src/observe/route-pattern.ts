// The route pattern a request path falls under, for metric labels: a fixed, small set, so a
// slug, site, asset name or random path never becomes a label value.
import { isAssetPath } from '../dist/layout.ts';

const EXACT = new Set(['/', '/v1/articles', '/openapi.json', '/v1/openapi.json', '/llms.txt', '/v1/llms.txt', '/healthz', '/readyz', '/metrics', '/hooks/git']);

export function routePattern(path: string): string {
  if (EXACT.has(path)) return path;
  if (path.startsWith('/v1/articles/') && path.indexOf('/', 13) < 0) return '/v1/articles/:slug';
  if (isAssetPath(path)) return '/assets/:site/:name';
  if (path === '/admin' || path.startsWith('/admin/')) return '/admin/*';
  return 'unmatched';
}
