// What every command gets: the process's App (the config, parsed once, and what it opens) and
// where to print.
import fs from 'node:fs';
import type { App } from '../app/app.ts';
import type { Output } from '../app/output.ts';
import type { QuireConfig } from '../config/config.ts';
import { discoverSites } from '../content/load-content.ts';
import type { ContentIssue } from '../content/issues.ts';
import type { Site } from '../content/model.ts';
import { isMissingFile, withCode } from '../problems/problem.ts';
import { shownPath } from '../text/shown-path.ts';
import { closestName } from '../text/closest-name.ts';

export interface CliContext extends Output {
  app: App;
  /** The App's config. */
  config: QuireConfig;
}

/**
 * The sites of the content tree (only site.yaml files are read: naming a site must not cost a
 * read of every article); null, with the problem printed, when it has none: a command never
 * goes on, and succeeds, with no sites to work on.
 */
export async function readSites({ app, err }: CliContext): Promise<Site[] | null> {
  const { dir } = app.content();
  const issues: ContentIssue[] = [];
  const sites = await discoverSites(dir, issues);
  if (sites.length) return sites;
  err(noSitesMessage(dir, issues));
  return null;
}

/** Whether `siteId` is a site of the content tree; prints an error naming the sites there are when not. */
export async function isKnownSite(ctx: CliContext, siteId: string): Promise<boolean> {
  const sites = await readSites(ctx);
  if (!sites) return false;
  if (sites.some((s) => s.id === siteId)) return true;
  ctx.err(
    unknownSiteMessage(
      ctx.app.content().dir,
      siteId,
      sites.map((s) => s.id),
    ),
  );
  return false;
}

/** `no site "x" in content (sites: a, b)  [SITE_UNKNOWN]`, the content dir as given from the working directory. */
export function unknownSiteMessage(contentDir: string, siteId: string, sites: readonly string[], after = ''): string {
  return withCode(
    `no site "${siteId}" in ${shownPath(contentDir)} (sites: ${sites.join(', ') || 'none'})${after}`,
    'SITE_UNKNOWN',
  );
}

/** Why a content tree has no sites, and where commands look for one. */
function noSitesMessage(contentDir: string, issues: readonly ContentIssue[]): string {
  let why: string;
  try {
    fs.readdirSync(contentDir);
    why = issues.some((i) => i.code !== 'CONTENT_NO_SITES')
      ? 'no site.yaml in it could be read (`quire build` names the problems)'
      : 'no folder in it holds a site.yaml';
  } catch (e) {
    why = isMissingFile(e)
      ? 'there is no such folder'
      : `it cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  return withCode(
    `no sites in ${shownPath(contentDir)}: ${why}\n` +
      "    hint: run this in the folder that holds content/, or set QUIRE_CONTENT_DIR; beside a server that follows a repository (`quire start --follow`), run it in that server's folder with its settings: its checkout is found in the state dir",
    'CONTENT_NO_SITES',
  );
}

/** `unknown action "sett" (did you mean "set"?)`: as an unknown command is answered. */
export function unknownAction(action: string, actions: readonly string[]): string {
  const near = closestName(action, actions);
  return `unknown action "${action}"${near ? ` (did you mean "${near}"?)` : ''}`;
}

/** A command line Quire cannot run: the message with its code, and exit status 2. */
export function refuseCommandLine(err: (line: string) => void, message: string): 2 {
  err(withCode(message, 'COMMAND_LINE_INVALID'));
  return 2;
}
