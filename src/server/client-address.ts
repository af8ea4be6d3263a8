// Who a request or connection comes from, for per-client limits (sign-in throttle, connection
// cap), and which origin and host the client addressed (the admin's cross-site check, its
// cookie's Secure flag, the Host check of `host-check.ts`). The socket's peer address is believed; X-Forwarded-* only when that peer is a proxy
// QUIRE_TRUST_PROXY names (`trusted-proxy.ts`), since anyone else writes them as they like.
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { IncomingMessage } from 'node:http';
import { NO_TRUSTED_PROXY, type TrustProxy } from '../config/trust-proxy.ts';
import { forwardedClientAddress, forwardedHost, forwardedOrigin } from './trusted-proxy.ts';

/** The bucket of requests without a socket (in-process `app.request()`): one shared client. */
export const UNKNOWN_CLIENT = 'unknown';

/** The request's socket peer, or undefined in-process (`app.request()`). */
function peerAddress(c: Context): string | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress;
}

/** The client of the request, as a client key: the peer, or the client a trusted proxy names. */
export function requestClientAddress(c: Context, trust: TrustProxy = NO_TRUSTED_PROXY): string {
  return clientKey(forwardedClientAddress(trust, peerAddress(c), c.req.header('x-forwarded-for')));
}

/** The origin the client sent the request to: its own URL's, or as a trusted proxy says. */
export function requestOrigin(c: Context, trust: TrustProxy = NO_TRUSTED_PROXY): string {
  return forwardedOrigin(trust, peerAddress(c), new URL(c.req.url), {
    proto: c.req.header('x-forwarded-proto'),
    host: c.req.header('x-forwarded-host'),
  });
}

/** The host[:port] the client addressed: as a trusted proxy forwards it, else the request's own (Host). */
export function requestHost(c: Context, trust: TrustProxy = NO_TRUSTED_PROXY): { host: string; fromProxy: boolean } {
  const forwarded = forwardedHost(trust, peerAddress(c), c.req.header('x-forwarded-host'));
  return forwarded === undefined
    ? { host: new URL(c.req.url).host, fromProxy: false }
    : { host: forwarded, fromProxy: true };
}

/**
 * One key per client: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64, so
 * counting single IPv6 addresses would let it take 2^64 turns). IPv4-mapped IPv6 is IPv4.
 */
export function clientKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return UNKNOWN_CLIENT;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}
