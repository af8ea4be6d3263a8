// What every command gets: the process's App (the config, parsed once, and what it opens) and
// where to print.
import type { App } from '../app/app.ts';
import type { QuireConfig } from '../config/config.ts';
import { discoverSites } from '../content/load-content.ts';

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
  err(`no site "${siteId}" in ${config.contentDir} (sites: ${sites.join(', ') || 'none'})`);
  return false;
}
