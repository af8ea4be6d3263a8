// What every page behind the session shares: the sites of the build served, a site named in the
// path (or the app's 404 page), the one-time message of the session, and the redirect that
// leaves one (post/redirect/get); and a form's address opened with GET, sent to its tab.
import type { Context, Hono } from 'hono';
import type { SiteContent } from '../snapshot/snapshot-reader.ts';
import type { AdminDeps, AdminEnv } from './admin-deps.ts';
import type { Sessions } from './sessions.ts';
import { NotFoundPage } from './views/not-found.tsx';

export interface AdminPages {
  deps: AdminDeps;
  sitesOf(): Map<string, SiteContent>;
  /** The site the path names, or null (answer `notFound`). */
  siteOf(c: Context<AdminEnv>): { id: string; name: string } | null;
  notFound(c: Context<AdminEnv>): Response | Promise<Response>;
  /** The session's one-time message, taken. */
  flashOf(c: Context<AdminEnv>): ReturnType<Sessions['takeFlash']>;
  /** A 303 to `to`, with a message for the page there. */
  redirectWith(c: Context<AdminEnv>, to: string, kind: 'ok' | 'error', text: string): Response;
}

export function createAdminPages(deps: AdminDeps, sessions: Sessions): AdminPages {
  const sitesOf = (): Map<string, SiteContent> => deps.dist.current()?.sites ?? new Map();
  return {
    deps,
    sitesOf,
    siteOf(c) {
      const site = sitesOf().get(c.req.param('site') ?? '');
      return site ? { id: site.id, name: site.summary.name } : null;
    },
    notFound: (c) => c.html(<NotFoundPage csrf={c.get('session').csrf} />, 404),
    flashOf: (c) => sessions.takeFlash(c.get('session')),
    redirectWith(c, to, kind, text) {
      c.get('session').flash = { kind, text };
      return c.redirect(to, 303);
    },
  };
}

/** A form's address opened with GET (a bookmark, a reload after a redirect): its tab's page instead. */
export function addFormAddresses(
  app: Hono<AdminEnv>,
  pages: AdminPages,
  tab: string,
  actions: readonly string[],
): void {
  for (const action of actions) {
    app.get(`/sites/:site/${action}`, (c) => {
      const site = pages.siteOf(c);
      return site ? c.redirect(`/admin/sites/${site.id}/${tab}`, 303) : pages.notFound(c);
    });
  }
}
