// What every command gets: the process's App (the config, parsed once, and what it opens) and
// where to print.
import type { App } from '../app/app.ts';
import type { QuireConfig } from '../config/config.ts';
import path from 'node:path';
import { discoverSites } from '../content/load-content.ts';
import { withCode } from '../problems/problem.ts';
import { closestName } from '../text/closest-name.ts';

export interface CliContext {
  app: App;
  /** The App's config. */
  config: QuireConfig;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Whether `siteId` is a site of the content tree; prints an error naming the sites there are when not. */
export async function isKnownSite({ config, err }: CliContext, siteId: string): Promise<boolean> {
  // Only site.yaml files are read: checking a name must not cost a read of every article.
  const sites = (await discoverSites(config.contentDir, [])).map((s) => s.id);
  if (sites.includes(siteId)) return true;
  err(unknownSiteMessage(config.contentDir, siteId, sites));
  return false;
}

/** `no site "x" in content (sites: a, b)  [SITE_UNKNOWN]`, the content dir as given from the working directory. */
export function unknownSiteMessage(contentDir: string, siteId: string, sites: readonly string[], after = ''): string {
  return withCode(`no site "${siteId}" in ${shownPath(contentDir)} (sites: ${sites.join(', ') || 'none'})${after}`, 'SITE_UNKNOWN');
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

/** A folder as the user would type it from the working directory (as content problems name files). */
function shownPath(dir: string): string {
  const relative = path.relative(process.cwd(), dir);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}
