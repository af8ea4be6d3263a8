import { discoverSites } from '../../content/load-content.ts';
import { SITE_ID } from '../../content/model.ts';
import { createKeyringFor, type CliContext } from '../context.ts';

export async function runKeys(
  { config, out, err }: CliContext,
  opts: { site: string | null; json: boolean; rotate: string | null },
): Promise<number> {
  const { keyring, generations } = createKeyringFor(config);
  if (opts.rotate !== null) {
    if (!SITE_ID.test(opts.rotate)) {
      err('usage: quire keys rotate <site>');
      return 2;
    }
    const generation = generations.rotate(opts.rotate);
    out(`New key for ${opts.rotate} (generation ${generation}); the previous key no longer works:`);
    out(keyring.keyFor(opts.rotate));
    return 0;
  }
  // Only site.yaml files are read: listing keys must not cost a read of every article.
  let sites = (await discoverSites(config.contentDir, [])).map((s) => s.id);
  if (opts.site !== null) {
    if (!sites.includes(opts.site)) {
      err(`no site "${opts.site}" in ${config.contentDir} (sites: ${sites.join(', ') || 'none'})`);
      return 1;
    }
    sites = [opts.site];
  }
  const keys = sites.map((site) => ({ site, key: keyring.keyFor(site) }));
  if (opts.json) out(JSON.stringify(keys));
  else for (const k of keys) out(`${k.site}\t${k.key}`);
  return 0;
}
