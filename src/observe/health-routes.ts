// GET /healthz (the process answers), GET /readyz (it can do its job) and, when metrics are on,
// GET /metrics. Unauthenticated and cheap: nothing here reads the disk. Anyone may ask, so the
// answers name no build: a build id changes with drafts too, and would tell when they are written.
import type { Hono } from 'hono';
import type { Metrics } from './metrics.ts';
import type { Readiness } from './readiness.ts';

const NO_STORE = { 'cache-control': 'no-store' };

/** `paths`: where the API's route table puts them. */
export function addHealthRoutes(
  app: Hono,
  paths: { healthz: string; readyz: string; metrics: string },
  deps: { readiness: () => Readiness; metrics: Metrics | null },
): void {
  app.get(paths.healthz, (c) => c.json({ ok: true }, 200, NO_STORE));
  app.get(paths.readyz, (c) => {
    const r = deps.readiness();
    return r.ready ? c.json({ ready: true }, 200, NO_STORE) : c.json({ ready: false, reason: r.reason }, 503, NO_STORE);
  });
  const { metrics } = deps;
  if (metrics) {
    app.get(
      paths.metrics,
      async () =>
        new Response(await metrics.render(), {
          status: 200,
          headers: { 'content-type': metrics.contentType, ...NO_STORE },
        }),
    );
  }
}
