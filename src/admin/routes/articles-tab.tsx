// A site's Articles tab: every article of the last build with its state (draft, scheduled, live,
// expired) and its problems, signed 24 h preview links for drafts and scheduled ones, and an
// article's API body as JSON. With branch previews (`start --follow --previews`), `?ref=<branch>`
// shows a previewed branch instead, read-only: its last build's articles and problems, each with a
// preview link that names the branch; nothing of it is published.
import type { Context, Hono } from 'hono';
import { NO_CONTENT_FACTS } from '../../content/load-content.ts';
import { DEFAULT_TIMEZONE } from '../../content/model.ts';
import { createPreviewToken, DEFAULT_PREVIEW_TTL_MS, previewLink } from '../../keys/preview-token.ts';
import type { AdminBranch, AdminEnv } from '../admin-deps.ts';
import type { AdminPages } from '../admin-pages.tsx';
import { articleFactsFromContent } from '../article-facts.ts';
import { articleStatuses } from '../article-status.ts';
import { ArticlesTab } from '../views/site-articles.tsx';

export function addArticlesTab(app: Hono<AdminEnv>, pages: AdminPages): void {
  const { deps, sitesOf, siteOf, notFound, flashOf } = pages;

  /** The branch `?ref=` names: undefined for none (the followed branch), null for one not previewed. */
  const branchOf = (c: Context<AdminEnv>): AdminBranch | null | undefined => {
    const ref = c.req.query('ref');
    if (!ref) return undefined;
    return deps.branches?.list().find((b) => b.branch === ref) ?? null;
  };

  app.get('/sites/:site/articles', (c) => {
    const site = siteOf(c);
    const branch = branchOf(c);
    if (!site || branch === null) return notFound(c);
    const content = branch ? (branch.facts ?? NO_CONTENT_FACTS) : deps.lastBuild();
    const loaded = content.sites.find((s) => s.site.id === site.id);
    const { articles, siteProblems } = articleFactsFromContent(
      branch ? branch.contentDir : deps.contentDir,
      site.id,
      loaded,
      content.issues,
    );
    const served = branch ? branch.reader?.current()?.sites.get(site.id) : sitesOf().get(site.id);
    const live = new Map((served?.items ?? []).map((i) => [i.item.slug, i.item]));
    const timezone = loaded?.site.timezone ?? DEFAULT_TIMEZONE;
    const now = deps.publishing.now();
    const rows = articleStatuses(articles, live, now);
    // Drafts and scheduled articles open on the site's preview route with a signed 24 h link; on a
    // branch every article does, as the branch has it. The followed branch's previewUrl: a branch
    // cannot point its links elsewhere.
    const template =
      (branch ? deps.lastBuild().sites.find((s) => s.site.id === site.id) : loaded)?.site.previewUrl ?? null;
    if (template) {
      const previewKey = deps.keyring.previewKeyFor(site.id);
      for (const row of rows) {
        if (row.slug === null || (!branch && row.state !== 'draft' && row.state !== 'scheduled')) continue;
        if (branch && !branch.built) continue;
        row.previewLink = previewLink(
          template,
          row.slug,
          createPreviewToken(
            previewKey,
            { site: site.id, slug: row.slug, ref: branch?.branch ?? null },
            DEFAULT_PREVIEW_TTL_MS,
            now,
          ).token,
        );
      }
    }
    const branches = deps.branches;
    return c.html(
      <ArticlesTab
        csrf={c.get('session').csrf}
        flash={flashOf(c)}
        site={{ ...site, timezone }}
        articles={rows}
        siteProblems={siteProblems}
        branches={
          branches
            ? {
                followed: branches.followed(),
                list: branches.list().map((b) => ({ branch: b.branch, built: b.built })),
                shown: branch ? { branch: branch.branch, built: branch.built } : null,
              }
            : null
        }
      />,
    );
  });

  app.get('/sites/:site/articles/:file{[a-z0-9-]+\\.json}', (c) => {
    const branch = branchOf(c);
    if (branch === null) return notFound(c);
    const sites = branch ? branch.reader?.current()?.sites : sitesOf();
    const body = sites?.get(c.req.param('site'))?.articles.get(c.req.param('file').replace(/\.json$/, ''));
    if (!body) return notFound(c);
    return new Response(body.bytes, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  });
}
