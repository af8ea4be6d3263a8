// What a server says once it serves: where the API is, its limits, which hosts and proxies it
// answers, each site with its key, how to sign in to the Publishing app, and what it follows.
import type { QuireConfig } from '../config/config.ts';
import type { TrustProxy } from '../config/trust-proxy.ts';
import type { Keyring } from '../keys/api-keys.ts';
import type { Snapshot } from '../snapshot/snapshot-reader.ts';
import { describeAllowedHosts, type AllowedHosts } from '../server/host-check.ts';
import type { ConnectionLimits } from '../server/connection-limits.ts';

export interface ServingFacts {
  config: QuireConfig;
  /** The public URL. */
  base: string;
  port: number;
  limits: ConnectionLimits;
  hosts: AllowedHosts | null;
  snapshot: Snapshot;
  keyring: Keyring;
  /** The admin token (generated when QUIRE_ADMIN_TOKEN is unset); null: no Publishing app (no state store). */
  adminToken: string | null;
  /** The repository followed: its line, or null. */
  following: string | null;
}

export function printServing(
  { config, base, port, limits, hosts, snapshot, keyring, adminToken, following }: ServingFacts,
  out: (line: string) => void,
): void {
  out(`\nQuire Content API on ${base}/v1  (OpenAPI: ${base}/openapi.json)`);
  // Behind a proxy the public URL says nothing of where the proxy must send requests.
  if (config.publicUrl !== null)
    out(`Listening on ${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`);
  out(
    `Limits: ${limits.maxConnections} connections, ${limits.maxPerClient || 'no cap'} per client; request bodies up to ${config.maxBodyBytes} bytes`,
  );
  out(describeAllowedHosts(hosts, config.trustProxy));
  out(`${describeTrustProxy(config.trustProxy)}
`);
  for (const [id, site] of snapshot.sites) {
    out(`  ${id.padEnd(16)} ${site.summary.name} — ${site.articles.size} published`);
    out(`  ${''.padEnd(16)} key: ${keyring.keyFor(id)}`);
  }
  const [firstSite] = snapshot.sites.keys();
  if (firstSite) out(`\nTry:\n  curl -H "Authorization: Bearer ${keyring.keyFor(firstSite)}" ${base}/v1/articles\n`);
  // The token goes in the fragment: browsers never send it to the server, so it reaches no log.
  if (adminToken === null) out(`Publishing app: unavailable (the state store cannot be read; see above)\n`);
  else
    out(
      config.adminToken
        ? `Publishing app: ${base}/admin (sign in with QUIRE_ADMIN_TOKEN)\n`
        : `Publishing app: ${base}/admin/sign-in#token=${adminToken}\n`,
    );
  if (following !== null) out(following);
}

/** The start-up line about forwarded headers: whom they are read from. */
function describeTrustProxy(trust: TrustProxy): string {
  if (trust.kind === 'none') return 'Proxy: none trusted; X-Forwarded-* is not read (QUIRE_TRUST_PROXY)';
  if (trust.kind === 'first-hop')
    return 'Proxy: every peer is trusted as the proxy (QUIRE_TRUST_PROXY=1): only the proxy must reach this port';
  return `Proxy: X-Forwarded-* read from ${trust.ranges.map(([a, bits]) => `${a.toString()}/${bits}`).join(', ')}, not capped per client`;
}
