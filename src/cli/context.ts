// What every command gets: the config, loaded once, and where to print.
import type { QuireConfig } from '../config/config.ts';
import { discoverSites } from '../content/load-content.ts';
import { loadServerSecret } from '../config/server-secret.ts';
import { createKeyring } from '../keys/api-keys.ts';
import { openKeyGenerations } from '../keys/key-generations.ts';
import { createSafeClient } from '../net/safe-client.ts';
import type { DeliveryDeps } from '../publish/delivery-runner.ts';
import { USER_AGENT } from '../publish/signing.ts';
import { openStateStore } from '../store/state-store.ts';

export interface CliContext {
  config: QuireConfig;
  out: (line: string) => void;
  err: (line: string) => void;
}

export function createKeyringFor(config: QuireConfig) {
  const generations = openKeyGenerations(config.stateDir);
  return { keyring: createKeyring(loadServerSecret(config), generations), generations };
}

/** The state store, the SSRF-safe client and the clock: what webhook commands work with. */
export function openPublishing({ config, err }: CliContext): DeliveryDeps & { close(): void } {
  const store = openStateStore(config.stateDir, loadServerSecret(config));
  const client = createSafeClient({ allowPrivate: config.allowPrivateTargets, userAgent: USER_AGENT, log: err });
  return {
    store,
    client,
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    timeoutMs: config.webhookTimeoutMs,
    log: err,
    close() {
      client.close();
      store.close();
    },
  };
}

/** Whether `siteId` is a site of the content tree; prints an error naming the sites there are when not. */
export async function isKnownSite({ config, err }: CliContext, siteId: string): Promise<boolean> {
  // Only site.yaml files are read: checking a name must not cost a read of every article.
  const sites = (await discoverSites(config.contentDir, [])).map((s) => s.id);
  if (sites.includes(siteId)) return true;
  err(`no site "${siteId}" in ${config.contentDir} (sites: ${sites.join(', ') || 'none'})`);
  return false;
}
