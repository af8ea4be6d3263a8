// A site's Articles tab: every article of the last build with its state (draft, scheduled, live,
// expired) and its problems, signed 24 h preview links for drafts and scheduled ones, and an
// article's API body as JSON.
import type { Hono } from 'hono';
import { DEFAULT_TIMEZONE } from '../../content/model.ts';
import { createPreviewToken, DEFAULT_PREVIEW_TTL_MS, previewLink } from '../../keys/preview-token.ts';
import type { AdminEnv } from '../admin-deps.ts';
import type { AdminPages } from '../admin-pages.tsx';
import { articleFactsFromContent } from '../article-facts.ts';
import { articleStatuses } from '../article-status.ts';
import { ArticlesTab } from '../views/site-articles.tsx';

export function addArticlesTab(app: Hono<AdminEnv>, { deps, sitesOf, siteOf, notFound, flashOf }: AdminPages): void {
  app.get('/sites/:site/articles', (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const content = deps.lastBuild();
    const loaded = content.sites.find((s) => s.site.id === site.id);
    const { articles, siteProblems } = articleFactsFromContent(deps.contentDir, site.id, loaded, content.issues);
    const live = new Map(
      sitesOf()
        .get(site.id)!
        .items.map((i) => [i.item.slug, i.item]),
    );
    const timezone = loaded?.site.timezone ?? DEFAULT_TIMEZONE;
    const now = deps.publishing.now();
    const rows = articleStatuses(articles, live, now);
    // Drafts and scheduled articles open on the site's preview route with a signed 24 h link.
    const template = loaded?.site.previewUrl ?? null;
    if (template) {
      const previewKey = deps.keyring.previewKeyFor(site.id);
      for (const row of rows) {
        if (row.slug === null || (row.state !== 'draft' && row.state !== 'scheduled')) continue;
        row.previewLink = previewLink(
          template,
          row.slug,
          createPreviewToken(previewKey, { site: site.id, slug: row.slug }, DEFAULT_PREVIEW_TTL_MS, now).token,
        );
      }
    }
    return c.html(
      <ArticlesTab
        csrf={c.get('session').csrf}
        flash={flashOf(c)}
        site={{ ...site, timezone }}
        articles={rows}
        siteProblems={siteProblems}
      />,
    );
  });

  app.get('/sites/:site/articles/:file{[a-z0-9-]+\\.json}', (c) => {
    const body = sitesOf()
      .get(c.req.param('site'))
      ?.articles.get(c.req.param('file').replace(/\.json$/, ''));
    if (!body) return notFound(c);
    return new Response(body.bytes, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  });
}
