// What a trusted reverse proxy says about a request: the client's address (X-Forwarded-For), the
// scheme and host the client used (X-Forwarded-Proto, -Host). Read only when the socket's peer is
// a proxy QUIRE_TRUST_PROXY names; from anyone else these headers are the sender's own words.
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config/trust-proxy.ts';

/** The address in its comparable form (IPv4-mapped IPv6 as IPv4), or null when it is not one. */
function parseAddress(unsafe: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!unsafe || !ipaddr.isValid(unsafe)) return null;
  const parsed = ipaddr.parse(unsafe);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

function inRanges(trust: TrustProxy & { kind: 'addresses' }, address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return trust.ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** True when `peer` (a socket's remote address) is a proxy whose forwarded headers are believed. */
export function isTrustedProxy(trust: TrustProxy, peer: string | undefined): boolean {
  if (trust.kind === 'none') return false;
  if (trust.kind === 'first-hop') return true;
  const address = parseAddress(peer);
  return address !== null && inRanges(trust, address);
}

/** One hop of X-Forwarded-For: an address, maybe with a port ("203.0.113.7:5123", "[2001:db8::1]:443"). */
function hopAddress(unsafeHop: string): string | null {
  const hop = unsafeHop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  const address = bracketed?.[1] ?? withPort?.[1] ?? hop;
  const parsed = parseAddress(address);
  return parsed ? parsed.toString() : null;
}

/**
 * The client's address for a request from `peer`: the peer itself unless it is a trusted proxy;
 * then the rightmost hop of X-Forwarded-For that is not a trusted proxy (each proxy appends the
 * address it was reached from, so hops left of the first untrusted one are the client's to
 * write). `1` trusts one hop: the rightmost entry. A hop that is not an address ends the walk at
 * the last address believed.
 */
export function forwardedClientAddress(
  trust: TrustProxy,
  peer: string | undefined,
  unsafeForwardedFor: string | undefined,
): string | undefined {
  if (trust.kind === 'none' || !isTrustedProxy(trust, peer) || !unsafeForwardedFor) return peer;
  const hops = unsafeForwardedFor.split(',');
  let believed = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const address = hopAddress(hops[i]!);
    if (address === null) return believed;
    if (trust.kind === 'first-hop' || !inRanges(trust, parseAddress(address)!)) return address;
    believed = address;
  }
  return believed;
}

/** The last item of a comma-separated header: what the nearest proxy wrote, if it appended. */
function lastItem(unsafe: string | undefined): string | undefined {
  const item = unsafe?.split(',').at(-1)?.trim();
  return item || undefined;
}

/**
 * The origin (`scheme://host[:port]`) the client addressed, given the one the request arrived
 * with: X-Forwarded-Proto (http or https) and X-Forwarded-Host (a bare host[:port]) replace their
 * parts when the peer is a trusted proxy; a value that is not one is ignored.
 */
export function forwardedOrigin(
  trust: TrustProxy,
  peer: string | undefined,
  arrivedAt: URL,
  unsafe: { proto?: string | undefined; host?: string | undefined },
): string {
  if (!isTrustedProxy(trust, peer)) return arrivedAt.origin;
  const proto = lastItem(unsafe.proto)?.toLowerCase();
  const scheme = proto === 'http' || proto === 'https' ? proto : arrivedAt.protocol.slice(0, -1);
  const host = forwardedHost(trust, peer, unsafe.host);
  let origin: URL;
  try {
    origin = new URL(`${scheme}://${host ?? arrivedAt.host}`);
  } catch {
    return arrivedAt.origin;
  }
  return origin.origin;
}

/**
 * The host[:port] a trusted proxy says the client addressed (the last X-Forwarded-Host item), or
 * undefined: the peer is not a trusted proxy, it sent none, or what it sent is not a bare host.
 */
export function forwardedHost(
  trust: TrustProxy,
  peer: string | undefined,
  unsafeHost: string | undefined,
): string | undefined {
  if (!isTrustedProxy(trust, peer)) return undefined;
  const host = lastItem(unsafeHost);
  return host && isBareHost(host) ? host : undefined;
}

/** A host with an optional port and nothing else (no user, path, query). */
function isBareHost(unsafeHost: string): boolean {
  if (!/^[A-Za-z0-9.\-[\]:]+$/.test(unsafeHost)) return false;
  try {
    return new URL(`http://${unsafeHost}`).host === unsafeHost.toLowerCase().replace(/:80$/, '');
  } catch {
    return false;
  }
}
