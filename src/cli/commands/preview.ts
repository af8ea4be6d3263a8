// `quire preview <site> <slug> [--ref <branch>]`: a signed, expiring link to one article on the
// site's preview route; with --ref, to the article as a branch the server beside it previews has it.
import { locateBranch } from '../../app/branch-locations.ts';
import { discoverSites, loadContent } from '../../content/load-content.ts';
import { branchProblem } from '../../follow/follow-source.ts';
import { createPreviewToken, MAX_PREVIEW_TTL_MS, previewLink } from '../../keys/preview-token.ts';
import { parseDuration } from '../../text/duration.ts';
import { isKnownSite, refuseCommandLine, type CliContext } from '../context.ts';
import type { ArticleMeta } from '../../content/model.ts';
import { withCode } from '../../problems/problem.ts';
import { visibilityAt } from '../../schedule/windows.ts';

/** What the article is now, as an editor says it: a published one ahead of its publishedAt is scheduled. */
function stateOf(meta: Pick<ArticleMeta, 'status' | 'publishedAt' | 'expiresAt'>, now: number): string {
  if (meta.status === 'draft') return 'draft';
  const visibility = visibilityAt(meta, now);
  return visibility === 'live' ? 'published' : visibility;
}

export async function runPreview(
  ctx: CliContext,
  opts: { site: string | null; slug: string | null; ttl: string; json: boolean; ref: string | null; now: number },
): Promise<number> {
  const { app, out, err } = ctx;
  if (!opts.site || !opts.slug) {
    return refuseCommandLine(err, 'usage: quire preview <site> <slug> [--ref <branch>] [--ttl <duration>] [--json]');
  }
  const refProblem = opts.ref === null ? null : branchProblem(opts.ref);
  if (refProblem) return refuseCommandLine(err, `quire preview: --ref ${JSON.stringify(opts.ref)}: ${refProblem}`);
  const ttlMs = parseDuration(opts.ttl);
  if (ttlMs === null || ttlMs <= 0 || ttlMs > MAX_PREVIEW_TTL_MS) {
    return refuseCommandLine(
      err,
      `quire preview: --ttl "${opts.ttl}" is not a duration from 1s to 30d (e.g. 90m, 24h, 7d)`,
    );
  }
  // The branch's own content: its articles, and its site.yaml's previewUrl.
  const branch = opts.ref === null ? null : locateBranch(app, opts.ref);
  if (typeof branch === 'string') {
    err(branch);
    return 1;
  }
  if (branch === null && !(await isKnownSite(ctx, opts.site))) return 1;
  const content = await loadContent(branch?.contentDir ?? app.content().dir);
  const loaded = content.sites.find((s) => s.site.id === opts.site);
  if (!loaded) {
    // Known a moment ago (isKnownSite), not there now: its folder went meanwhile.
    err(
      withCode(
        branch
          ? `site "${opts.site}" is not on the branch "${branch.branch}" (sites: ${content.sites.map((s) => s.site.id).join(', ') || 'none'})`
          : `site "${opts.site}" is no longer in the content folder: run the command again`,
        'SITE_UNKNOWN',
      ),
    );
    return 1;
  }
  const article = loaded.articles.find((a) => a.meta.slug === opts.slug);
  if (!article) {
    err(
      withCode(
        `no article "${opts.slug}" in site "${opts.site}"${branch ? ` on the branch "${branch.branch}"` : ''} (drafts count; the slug is the one in front matter or made from the file name)`,
        'ARTICLE_UNKNOWN',
      ),
    );
    return 1;
  }
  // The followed branch's previewUrl, not the branch's: a branch cannot point its links elsewhere.
  const { previewUrl } = branch
    ? ((await discoverSites(app.content().dir, [])).find((s) => s.id === opts.site) ?? { previewUrl: null })
    : loaded.site;
  if (previewUrl === null) {
    err(
      withCode(
        `site "${opts.site}" has no previewUrl: add one to ${opts.site}/site.yaml, e.g. previewUrl: ${new URL('/api/preview', loaded.site.url).href}?slug={slug}&token={token}`,
        'PREVIEW_URL_MISSING',
      ),
    );
    return 1;
  }
  const { keyring } = await app.keys();
  const { token, expiresAt } = createPreviewToken(
    keyring.previewKeyFor(opts.site),
    { site: opts.site, slug: opts.slug, ref: opts.ref },
    ttlMs,
    opts.now,
  );
  const url = previewLink(previewUrl, opts.slug, token);
  if (opts.json) out(JSON.stringify({ url, token, expiresAt, ...(opts.ref === null ? {} : { ref: opts.ref }) }));
  else {
    out(url);
    err(
      `Opens the ${stateOf(article.meta, opts.now)} "${opts.slug}"${opts.ref === null ? '' : ` of the branch "${opts.ref}"`} until ${expiresAt} (UTC); anyone with the link can read it until then.`,
    );
  }
  return 0;
}
