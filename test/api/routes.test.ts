// The server's route table is the one list: the server's router registers exactly its routes,
// metric labels come from it (and the mounts), and nothing a client sends becomes a label.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { API_ROUTES, MOUNTS, isReadOnlyApiPath, routePattern, SERVICE_ROUTES } from '../../src/api/routes.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { createServerRouter } from '../../src/app/server-router.ts';

describe('the route table', () => {
  it("is what the server's router registers, mounts included", () => {
    const admin = new Hono();
    admin.get('/', (c) => c.text('admin'));
    const app = createServerRouter({
      api: {
        store: openLocalSnapshot('/nonexistent-dist', '/nonexistent-state'),
        keyring: createKeyring('test-secret-0123456789abcdef0123456789abcdef', { generationOf: () => 1 }),
        publicUrl: 'http://127.0.0.1',
      },
      metrics: createMetrics({ pending: null }),
      admin: { app: admin },
    });
    const registered = new Set(app.routes.filter((r) => r.method === 'GET').map((r) => r.path));
    expect(registered).toEqual(new Set([...Object.values(API_ROUTES), ...Object.values(SERVICE_ROUTES), MOUNTS.admin]));
  });

  it('labels a path by the pattern it falls under, never by what the client sent', () => {
    expect(routePattern('/v1/articles')).toBe('/v1/articles');
    expect(routePattern('/v1/articles/some-slug')).toBe('/v1/articles/:slug');
    expect(routePattern('/v1/articles/a/b')).toBe('unmatched');
    expect(routePattern('/assets/one/photo.abc123.png')).toBe('/assets/:site/:name');
    expect(routePattern('/assets/one/deep/photo.png')).toBe('/assets/:site/:name');
    expect(routePattern('/v1/openapi.json')).toBe('/v1/openapi.json');
    expect(routePattern('/healthz')).toBe('/healthz');
    expect(routePattern('/admin')).toBe('/admin/*');
    expect(routePattern('/admin/sites/one')).toBe('/admin/*');
    expect(routePattern('/hooks/git')).toBe('/hooks/*');
    expect(routePattern('/administrator')).toBe('unmatched');
    expect(routePattern('/wp-login.php')).toBe('unmatched');
  });

  it('says which paths are the read-only API (405 for another method), not the service routes', () => {
    for (const path of ['/v1/articles', '/v1/articles/x', '/assets/one/a.png', '/openapi.json', '/v1/llms.txt'])
      expect(isReadOnlyApiPath(path)).toBe(true);
    for (const path of ['/', '/healthz', '/metrics', '/v2/articles', '/v1/articles/a/b', '/admin'])
      expect(isReadOnlyApiPath(path)).toBe(false);
  });
});
