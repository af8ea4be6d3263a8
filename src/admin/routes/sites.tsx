// The sites page (/admin): each site of the build served, with its webhook and what waits to be
// delivered; /admin/sites/<site> opens its Publishing tab.
import type { Hono } from 'hono';
import type { AdminEnv } from '../admin-deps.ts';
import type { AdminPages } from '../admin-pages.tsx';
import { SitesPage } from '../views/sites.tsx';

export function addSitesPage(app: Hono<AdminEnv>, { deps, sitesOf, flashOf }: AdminPages): void {
  app.get('/', async (c) => {
    const { store } = deps.publishing;
    const sites = [];
    for (const s of sitesOf().values()) {
      const hook = await store.webhooks.get(s.id);
      const counts = await store.outbox.counts(s.id);
      // Failures count while there is a webhook to redeliver to; a removed webhook waits for nothing.
      const undelivered = hook ? (await store.outbox.undelivered(s.id)).length : 0;
      sites.push({
        id: s.id,
        name: s.summary.name,
        published: s.articles.size,
        webhook: hook ? { url: hook.url, disabled: hook.disabledAt !== null } : null,
        pending: counts.pending,
        undelivered,
      });
    }
    return c.html(<SitesPage csrf={c.get('session').csrf} flash={flashOf(c)} sites={sites} />);
  });

  app.get('/sites/:site', (c) => c.redirect(`/admin/sites/${c.req.param('site')}/publishing`, 303));
}
