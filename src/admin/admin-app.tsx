// The Publishing web app under /admin: sign in with the admin token, then per site the
// Articles, Publishing (key, webhook, Test connection) and Deliveries tabs. Server-rendered
// forms that work without JavaScript; every POST needs the session's CSRF token. Assembled here
// from its parts: sign-in and the session (routes/sign-in.tsx), a module per tab (routes/), and
// what their pages share (admin-pages.tsx).
import { Hono, type Context } from 'hono';
import { ApiError } from '../api/api-error.ts';
import { printable } from '../text/printable.ts';
import type { AdminDeps, AdminEnv } from './admin-deps.ts';
import { addFormAddresses, createAdminPages } from './admin-pages.tsx';
import { ADMIN_ASSETS } from './assets.ts';
import { ADMIN_SECURITY_HEADERS } from './security-headers.ts';
import { sameOrigin } from './same-origin.ts';
import { createSessions } from './sessions.ts';
import { addArticlesTab } from './routes/articles-tab.tsx';
import { addDeliveriesTab, DELIVERIES_FORMS } from './routes/deliveries-tab.tsx';
import { addPublishingTab, PUBLISHING_FORMS } from './routes/publishing-tab.tsx';
import { addSignIn, addSignOut, requireSession } from './routes/sign-in.tsx';
import { addSitesPage } from './routes/sites.tsx';
import { ErrorPage } from './views/error-page.tsx';

export type { AdminDeps } from './admin-deps.ts';

export function createAdminApp(deps: AdminDeps) {
  const sessions = createSessions(deps.adminToken, deps.publishing.now);
  const origin = sameOrigin(deps);
  const pages = createAdminPages(deps, sessions);
  const app = new Hono<AdminEnv>();

  app.use('*', async function securityHeaders(c, next) {
    await next();
    for (const [k, v] of Object.entries(ADMIN_SECURITY_HEADERS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
  });

  // `/admin/` (and any address typed with a trailing slash) is the page at the same address
  // without it, not the 404 page. A relative Location: the Host header names no trusted origin.
  app.use('*', async function withoutTrailingSlash(c, next) {
    const { pathname, search } = new URL(c.req.url);
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && pathname.length > 1 && pathname.endsWith('/'))
      return c.redirect(pathname.replace(/\/+$/, '') + search, 301);
    await next();
  });

  for (const asset of Object.values(ADMIN_ASSETS)) {
    app.get(
      asset.path.replace('/admin', ''),
      () =>
        new Response(asset.body, {
          headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' },
        }),
    );
  }

  addSignIn(app, { sessions, origin, trustProxy: deps.trustProxy });
  // Everything below needs a session; every POST also needs its CSRF token.
  app.use('*', requireSession({ sessions, origin }));
  addSignOut(app, sessions);

  addSitesPage(app, pages);
  addArticlesTab(app, pages);
  addPublishingTab(app, pages);
  addDeliveriesTab(app, pages);
  addFormAddresses(app, pages, 'publishing', PUBLISHING_FORMS);
  addFormAddresses(app, pages, 'deliveries', DELIVERIES_FORMS);
  // Mounted apps do not bring their own notFound handler: this catch-all keeps every address
  // under /admin inside the app.
  app.all('*', (c) => pages.notFound(c));

  // Errors thrown in this app's handlers get a page of the app too, not the API's JSON.
  app.onError((err, c) => {
    if (err instanceof ApiError) return renderAdminRefusal(err, c); // a body over the cap, read here
    const csrf = c.get('session')?.csrf;
    deps.log?.(
      `admin: internal error on ${c.req.method} ${printable(c.req.path)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return c.html(
      <ErrorPage csrf={csrf} message="The server failed to answer this request; the details are in its log." />,
      500,
    );
  });

  return app;
}

/**
 * A refusal of the server's (a request body over the cap) on an /admin path, as a page of the app:
 * the server's own error for that status, with no API JSON. The status and headers are kept.
 */
export function renderAdminRefusal(err: ApiError, c: Context): Response | Promise<Response> {
  const headers = { ...err.headers, ...ADMIN_SECURITY_HEADERS, 'cache-control': 'no-store' };
  return c.html(<ErrorPage message={`${err.message}.`} />, err.status as 413, headers);
}
