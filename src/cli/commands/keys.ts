import { SITE_ID } from '../../content/model.ts';
import { previewKeyName } from '../../keys/api-keys.ts';
import { keyOfSite } from '../../keys/key-generations.ts';
import { restoreKeysFile } from '../../keys/recorded-generations.ts';
import { readSites, refuseCommandLine, unknownSiteMessage, type CliContext } from '../context.ts';

export async function runKeys(
  ctx: CliContext,
  opts: { site: string | null; json: boolean; rotate: string | null; preview: boolean },
): Promise<number> {
  const { app, out, err } = ctx;
  if (opts.rotate !== null && !SITE_ID.test(opts.rotate)) {
    return refuseCommandLine(err, 'usage: quire keys rotate <site> [--preview]');
  }
  if (opts.preview && opts.rotate === null) {
    return refuseCommandLine(
      err,
      '--preview goes with rotate: quire keys rotate <site> --preview (`quire keys` prints both keys)',
    );
  }
  // No sites found is a failure, not an empty list: the content looked at is not the one meant.
  const found = await readSites(ctx);
  if (!found) return 1;
  const sites = found.map((s) => s.id);
  // A mistyped site must not "succeed": rotating a site that does not exist changes no real key.
  const wanted = opts.rotate ?? opts.site;
  if (wanted !== null && !sites.includes(wanted)) {
    err(unknownSiteMessage(app.content().dir, wanted, sites, opts.rotate !== null ? '; no key was rotated' : ''));
    return 1;
  }
  const { keyring, generations } = await app.keys();
  if (opts.rotate !== null) {
    if (opts.preview) {
      const generation = await generations.rotate(previewKeyName(opts.rotate));
      out(
        `New preview key for ${opts.rotate} (generation ${generation}); the previous preview key no longer works, the API key is unchanged:`,
      );
      out(keyring.previewKeyFor(opts.rotate));
      return 0;
    }
    const generation = await generations.rotate(opts.rotate);
    out(
      `New key for ${opts.rotate} (generation ${generation}); the previous key no longer works, the preview key is unchanged:`,
    );
    out(keyring.keyFor(opts.rotate));
    return 0;
  }
  const keys = (wanted === null ? sites : [wanted]).map((site) => ({
    site,
    key: keyring.keyFor(site),
    previewKey: keyring.previewKeyFor(site),
  }));
  if (opts.json) out(JSON.stringify(keys));
  else for (const k of keys) out(`${k.site}\t${k.key}\t${k.previewKey}`);
  return 0;
}

/** `quire keys restore`: keys.json brought up to the state store's generations (after it was lost or left behind). */
export async function runKeysRestore({ app, out, err }: CliContext): Promise<number> {
  const store = await app.keyRecords();
  if ('unreadable' in store) {
    err(`${store.unreadable.message}\nNothing was restored: the key generations are read from the state store.`);
    return 1;
  }
  const { file, restored } = await restoreKeysFile(app.config.stateDir, store.records, await app.projectSites());
  if (!restored.length) {
    out(`Nothing to restore: ${file} holds every key generation ${store.records.where} has for the sites here.`);
    return 0;
  }
  out(`Restored ${file} from ${store.records.where}:`);
  for (const r of restored)
    out(`  ${keyOfSite(r.name)}: generation ${r.to} (keys.json had ${r.from === 1 ? 'none' : r.from})`);
  return 0;
}
