// Which host names the Node server answers for. A page on any site can make a browser talk to a
// server on the visitor's loopback under the page's own name (DNS rebinding: evil.example resolves
// to 127.0.0.1 once the page is loaded) and read the answers (/healthz, /metrics), and the
// admin's origin check follows the Host it is given. Such a request names a host that is not this
// server's, and is answered 421. A browser sends the name in its address bar, so `localhost` or
// an IP literal is where it really connected: those cannot be rebound.
//
// The hosts: QUIRE_PUBLIC_URL's, and the loopback names with the port the server listens on (a
// scraper or health check on the machine). Without QUIRE_PUBLIC_URL, a server on loopback answers
// the loopback names and what a trusted proxy forwards (the proxy is reached under names Quire is
// not told); one listening beyond loopback answers any host, having nothing to hold it to.
// Not on the edge Worker: its platform routes by host name.
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../api/api-error.ts';
import { BoundedMap } from '../cache/bounded-map.ts';
import type { TrustProxy } from '../config/trust-proxy.ts';
import { requestHost } from './client-address.ts';

interface HostAndPort {
  hostname: string;
  port: number;
  /** The port is its scheme's default: a Host without a port names it. */
  defaultPort: boolean;
}

export interface AllowedHosts {
  /** QUIRE_PUBLIC_URL's host, or null when it is not set. */
  readonly publicHost: HostAndPort | null;
  /** The port the loopback names are answered with: the one the server listens on. */
  readonly loopbackPort: number;
  /** No public URL to hold it to: a trusted proxy's X-Forwarded-Host is answered as it is. */
  readonly forwardedAsIs: boolean;
}

/** What the server answers for; null: any host (it listens beyond loopback without a public URL). */
export function allowedHosts(settings: {
  publicUrl: string | null;
  listenHost: string;
  port: number;
}): AllowedHosts | null {
  if (settings.publicUrl === null && !isLoopbackAddress(settings.listenHost)) return null;
  let publicHost: HostAndPort | null = null;
  if (settings.publicUrl !== null) {
    const url = new URL(settings.publicUrl);
    publicHost = {
      hostname: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      defaultPort: url.port === '',
    };
  }
  return { publicHost, loopbackPort: settings.port, forwardedAsIs: publicHost === null };
}

/** Whether the server answers a request that names `host` (host[:port]); `fromProxy`: a trusted proxy forwarded it. */
export function isAllowedHost(allowed: AllowedHosts, host: string, fromProxy: boolean): boolean {
  if (fromProxy && allowed.forwardedAsIs) return true;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  // Read as http, a port of 80 is dropped: null is "none given, or 80".
  const port = url.port === '' ? null : Number(url.port);
  const names = (entry: HostAndPort) =>
    url.hostname === entry.hostname &&
    (port === entry.port || (port === null && (entry.defaultPort || entry.port === 80)));
  if (allowed.publicHost && names(allowed.publicHost)) return true;
  const loopbackPort = allowed.loopbackPort;
  return (
    isLoopbackName(url.hostname) &&
    names({ hostname: url.hostname, port: loopbackPort, defaultPort: loopbackPort === 80 })
  );
}

/**
 * The Host check of a request as Node gives it, for answers made before the app (fast-get.ts):
 * true when the app's hostCheck would let it through without a trusted proxy's forwarded host to
 * read (such a request goes to the app). Decisions are kept per Host value (a bounded few):
 * parsing one is most of the check's cost.
 */
export function nodeHostFilter(allowed: AllowedHosts | null, trust: TrustProxy): (req: IncomingMessage) => boolean {
  if (allowed === null) return () => true;
  const decided = new BoundedMap<string, boolean>(64);
  return function hostAllowed(req) {
    if (trust.kind !== 'none' && req.headers['x-forwarded-host'] !== undefined) return false;
    const host = req.headers.host;
    if (host === undefined) return true;
    let ok = decided.get(host);
    if (ok === undefined) decided.set(host, (ok = isAllowedHost(allowed, host, false)));
    return ok;
  };
}

/**
 * Refuses (421 HOST_NOT_ALLOWED) a request that names a host the server does not answer for,
 * before any route. A request without a Host header is let through: HTTP/1.0 health checks send
 * none, and a browser always does.
 */
export const allowedHostsOnly = (allowed: AllowedHosts, trust: TrustProxy): MiddlewareHandler => {
  if (!Number.isInteger(allowed?.loopbackPort))
    throw new TypeError('allowedHostsOnly: allowed must be the hosts of allowedHosts()');
  if (typeof trust?.kind !== 'string')
    throw new TypeError('allowedHostsOnly: trust must be the parsed QUIRE_TRUST_PROXY');
  return async function hostCheck(c, next) {
    const { host, fromProxy } = requestHost(c, trust);
    if ((fromProxy || c.req.header('host') !== undefined) && !isAllowedHost(allowed, host, fromProxy)) {
      throw new ApiError(
        'HOST_NOT_ALLOWED',
        `this server does not answer for the host "${host}": address it by QUIRE_PUBLIC_URL's host, or on its machine by localhost with its port`,
      );
    }
    await next();
  };
};

/** For the start-up banner: which hosts are answered. */
export function describeAllowedHosts(allowed: AllowedHosts | null, trust: TrustProxy): string {
  if (allowed === null)
    return 'Hosts: any (listening beyond loopback without QUIRE_PUBLIC_URL; set it to answer its host only)';
  const loopback = `localhost, 127.0.0.1 and [::1] on port ${allowed.loopbackPort}`;
  if (allowed.publicHost) {
    const { hostname, port, defaultPort } = allowed.publicHost;
    return `Hosts: ${defaultPort ? hostname : `${hostname}:${port}`} (QUIRE_PUBLIC_URL), and ${loopback}; others are answered 421`;
  }
  return `Hosts: ${loopback}${trust.kind === 'none' ? '' : ', and what a trusted proxy forwards'}; others are answered 421 (QUIRE_PUBLIC_URL names the public one)`;
}

/** `localhost`, 127.0.0.0/8 or ::1, as the URL parser writes a hostname. */
function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Whether HOST is a loopback address (or `localhost`): only this machine reaches the server. */
function isLoopbackAddress(listenHost: string): boolean {
  if (listenHost === 'localhost') return true;
  if (!ipaddr.isValid(listenHost)) return false;
  const parsed = ipaddr.parse(listenHost);
  const address =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed;
  return address.range() === 'loopback';
}
