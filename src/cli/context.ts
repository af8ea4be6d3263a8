// What every command gets: the config, loaded once, and where to print.
import type { QuireConfig } from '../config/config.ts';
import { discoverSites } from '../content/load-content.ts';
import { loadServerSecret } from '../config/server-secret.ts';
import { createKeyring } from '../keys/api-keys.ts';
import { openKeyGenerations } from '../keys/key-generations.ts';
import { checkKeysAgainstBuild } from '../keys/key-record.ts';
import { readManifest } from '../build/manifest.ts';
import { createSafeClient, type SafeClient } from '../net/safe-client.ts';
import { VERIFIED_SITE } from '../net/target-policy.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import { USER_AGENT } from '../delivery/signing.ts';
import { openStateStore, type StateStore } from '../store/state-store.ts';

export interface CliContext {
  config: QuireConfig;
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * The keyring and its generations, refused (KeyStateError naming the file) when keys.json cannot
 * be read or is behind what the current dist/ recorded: either would make rotated keys valid again.
 */
export function createKeyringFor(config: QuireConfig) {
  const generations = openKeyGenerations(config.stateDir);
  checkKeysAgainstBuild(generations, readManifest(config.distDir), config.distDir);
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

/** The client that fetches a receiving site's pages for verification: http or https, public hosts only. */
export function createVerifyClient({ config }: CliContext, log: (line: string) => void): SafeClient {
  return createSafeClient({ allowPrivate: config.allowPrivateTargets, policy: VERIFIED_SITE, log });
}

/** `quire verify`: the state store (for receivers' reply URLs) and the verification client. */
export function openVerification(ctx: CliContext): { store: StateStore; client: SafeClient; close(): void } {
  const store = openStateStore(ctx.config.stateDir, loadServerSecret(ctx.config));
  const client = createVerifyClient(ctx, ctx.err);
  return {
    store,
    client,
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
