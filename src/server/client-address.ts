// Who a request or connection comes from, for per-client limits (sign-in throttle, connection
// cap). Only the socket's peer address is believed: X-Forwarded-For is written by whoever sends
// the request. A trusted-proxy setting would be applied in `requestClientAddress` alone: read
// the forwarded address only when the peer is that proxy.
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { IncomingMessage } from 'node:http';

/** The bucket of requests without a socket (in-process `app.request()`): one shared client. */
export const UNKNOWN_CLIENT = 'unknown';

/** The peer address of the request's socket, as a client key. */
export function requestClientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return clientKey(incoming?.socket.remoteAddress);
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
  return `${v6.parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}
