// The Node server's root router: what it answers, in the order a request meets it. The host
// check first (every route, 421 to names the server does not answer for), the body cap for the
// methods that carry one, the Publishing app at /admin and the push hook at /hooks (mounted
// apps, matched before the API's catch-all preflight), the Content API's routes, health and
// metrics; one answer for a path no route takes, one onError (the admin's refusals as its pages).
// The API's routes are registered on this app itself: mounted as an app with its own onError,
// each of its handlers would be wrapped in another composition, on the hot path.
import { Hono, type MiddlewareHandler } from 'hono';
import { addApiRoutes, type ApiDeps } from '../api/app.ts';
import { answerProblems, noRoute, type RefusalPages } from '../api/error-response.ts';
import { BODY_METHODS, bodyLimit } from '../api/middleware/body-limit.ts';
import { MOUNTS, SERVICE_ROUTES } from '../api/routes.ts';
import { addHealthRoutes } from '../observe/health-routes.ts';
import type { Metrics } from '../observe/metrics.ts';
import { createReadiness, type Readiness } from '../observe/readiness.ts';

export interface ServerRoutes {
  api: ApiDeps;
  /** The Publishing app, and how it answers the server's refusals on its paths (a body over the cap). */
  // biome-ignore lint/suspicious/noExplicitAny: the admin app is mounted as it is, whatever its own Env
  admin?: { app: Hono<any>; renderError?: RefusalPages['render'] } | null;
  /** The push endpoint of a server that follows a repository (POST /hooks/git). */
  hooks?: Hono | null;
  /** Before every route: the host check (src/server/host-check.ts); none: any host. */
  hostCheck?: MiddlewareHandler | null;
  /** Cap on every request body read by any route (default 1 MiB). */
  maxBodyBytes?: number;
  /** What GET /readyz answers (default: ready once a build is served). */
  readiness?: () => Readiness;
  /** Serves GET /metrics when given (QUIRE_METRICS=1); absent, /metrics is 404. */
  metrics?: Metrics | null;
}

export function createServerRouter({
  api,
  admin = null,
  hooks = null,
  hostCheck = null,
  maxBodyBytes,
  readiness,
  metrics = null,
}: ServerRoutes): Hono {
  const root = new Hono();
  if (hostCheck) root.use('*', hostCheck);
  root.on(BODY_METHODS, '*', bodyLimit({ maxBytes: maxBodyBytes }));
  if (admin) root.route(MOUNTS.admin, admin.app);
  if (hooks) root.route(MOUNTS.hooks, hooks);
  addApiRoutes(root, api);
  addHealthRoutes(root, SERVICE_ROUTES, {
    readiness: readiness ?? createReadiness({ buildServed: () => api.store.current() !== null }),
    metrics,
  });
  root.notFound(noRoute);
  root.onError(
    answerProblems({
      log: api.log,
      pages: admin?.renderError ? [{ path: MOUNTS.admin, render: admin.renderError }] : [],
    }),
  );
  return root;
}
