// `quire preview --changed --ref <branch> [--base <branch>] [--format markdown|json]`: the articles
// a previewed branch adds or changes since it left its base, each with a signed link to its
// preview: the text a pull-request comment carries (markdown), or JSON for a script.
import { locateBranch, type BranchLocation } from '../../app/branch-locations.ts';
import { readFollowedBranch } from '../../follow/branch-store.ts';
import { branchPreviewsDir } from '../../config/state-layout.ts';
import { discoverSites } from '../../content/load-content.ts';
import { changedFiles } from '../../follow/branch-repository.ts';
import { builtArticles, changedArticles, type ChangedArticle } from '../../follow/changed-articles.ts';
import { branchProblem } from '../../follow/follow-source.ts';
import { createPreviewToken, MAX_PREVIEW_TTL_MS, previewLink } from '../../keys/preview-token.ts';
import { parseDuration } from '../../text/duration.ts';
import { errorText, withCode } from '../../problems/problem.ts';
import { openLocalSnapshot } from '../../snapshot/local-snapshot.ts';
import { refuseCommandLine, type CliContext } from '../context.ts';

interface LinkedArticle extends ChangedArticle {
  url: string | null;
  token: string | null;
}

export async function runPreviewChanged(
  ctx: CliContext,
  opts: { ref: string; base: string | null; format: string; ttl: string; now: number },
): Promise<number> {
  const { app, out, err } = ctx;
  for (const [option, name] of [
    ['--ref', opts.ref],
    ['--base', opts.base],
  ] as const) {
    const problem = name === null ? null : branchProblem(name);
    if (problem) return refuseCommandLine(err, `quire preview: ${option} ${JSON.stringify(name)}: ${problem}`);
  }
  if (opts.format !== 'markdown' && opts.format !== 'json')
    return refuseCommandLine(err, `quire preview: --format is markdown or json, not ${JSON.stringify(opts.format)}`);
  const ttlMs = parseDuration(opts.ttl);
  if (ttlMs === null || ttlMs <= 0 || ttlMs > MAX_PREVIEW_TTL_MS)
    return refuseCommandLine(
      err,
      `quire preview: --ttl "${opts.ttl}" is not a duration from 1s to 30d (e.g. 90m, 24h, 7d)`,
    );

  const root = branchPreviewsDir(app.config.stateDir);
  const baseName = opts.base ?? readFollowedBranch(root);
  if (baseName === null) {
    err(
      withCode(
        `no branch to compare "${opts.ref}" with: no server that previews branches ran beside this command (give --base <branch>)`,
        'BRANCH_NOT_PREVIEWED',
      ),
    );
    return 1;
  }
  const head = locateBranch(app, opts.ref);
  const against = locateBranch(app, baseName);
  for (const found of [head, against])
    if (typeof found === 'string') {
      err(found);
      return 1;
    }
  if (typeof head === 'string' || typeof against === 'string') return 1;
  let touched: Set<string>;
  try {
    touched = new Set(await changedFiles(root, against.built ?? against.gitRef, head.built ?? head.gitRef));
  } catch (e) {
    err(`quire preview: what "${head.branch}" changed since "${against.branch}" could not be read: ${errorText(e)}`);
    return 1;
  }
  const [mine, theirs] = await Promise.all([articlesOf(head, opts.now), articlesOf(against, opts.now)]);
  const changed = changedArticles(mine, theirs, touched);

  // Links as `quire preview --ref` makes them: the site's preview key, and the previewUrl of the
  // followed branch's site.yaml (a branch cannot point its links elsewhere).
  const sites = new Map((await discoverSites(app.content().dir, [])).map((s) => [s.id, s]));
  const { keyring } = await app.keys();
  let expiresAt = '';
  const linked: LinkedArticle[] = changed.map((a) => {
    const template = sites.get(a.site)?.previewUrl ?? null;
    if (template === null) return { ...a, url: null, token: null };
    const made = createPreviewToken(
      keyring.previewKeyFor(a.site),
      { site: a.site, slug: a.slug, ref: head.branch },
      ttlMs,
      opts.now,
    );
    expiresAt = made.expiresAt;
    return { ...a, url: previewLink(template, a.slug, made.token), token: made.token };
  });
  // The commit the preview was built from: a workflow waits for its pull request's head to be it.
  const commit = head.built;
  if (opts.format === 'json')
    out(
      JSON.stringify({
        ref: head.branch,
        base: against.branch,
        commit,
        expiresAt: expiresAt || null,
        articles: linked,
      }),
    );
  else out(commentOf(head.branch, commit, against.branch, linked, expiresAt));
  return 0;
}

/** Every article of a branch's last good preview. */
async function articlesOf(where: BranchLocation, now: number) {
  const reader = openLocalSnapshot(where.distDir, where.stateDir);
  reader.reload();
  const snapshot = reader.current();
  return snapshot ? builtArticles(reader, snapshot, now) : [];
}

/** The pull-request comment: a list of titles with their links. */
function commentOf(
  branch: string,
  commit: string | null,
  base: string,
  articles: readonly LinkedArticle[],
  expiresAt: string,
): string {
  const at = commit ? ` at \`${commit.slice(0, 12)}\`` : '';
  if (!articles.length) return `No article is added or changed on \`${branch}\`${at} since it left \`${base}\`.\n`;
  const lines = articles.map((a) => {
    const title = escapeMarkdown(a.title);
    const what = `${a.change === 'added' ? 'new' : 'changed'}${a.state === 'published' ? '' : `, ${a.state}`}`;
    const link = a.url
      ? `[${title}](<${a.url.replace(/[<>\s]/g, encodeURIComponent)}>)`
      : `${title} (no link: the site has no previewUrl)`;
    return `- ${link}: ${what} · \`${a.site}/${a.slug}\``;
  });
  const until = expiresAt ? ` The links work until ${expiresAt} (UTC).` : '';
  return [
    `**Previews of \`${branch}\`**${at} (against \`${base}\`):`,
    '',
    ...lines,
    '',
    `_Quire branch preview.${until}_`,
    '',
  ].join('\n');
}

/** A title from content (anyone who opens a pull request) as text: no link, image, mention or HTML of its own. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[\\`*_{}[\]()<>#+!|~@&-]/g, (ch) => `\\${ch}`);
}
