// QUIRE_TRUST_PROXY: which socket peers are reverse proxies whose X-Forwarded-* headers are
// believed. Off by default: then those headers are written by whoever sends the request.
import ipaddr from 'ipaddr.js';
import { ProblemError } from '../problems/problem.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type TrustProxy =
  /** No peer is a proxy: X-Forwarded-* is never read. */
  | { readonly kind: 'none' }
  /** `1`: the peer is the proxy, whoever it is (only the proxy can reach this server). */
  | { readonly kind: 'first-hop' }
  /** Peers within these ranges are proxies (and so are hops within them in X-Forwarded-For). */
  | { readonly kind: 'addresses'; readonly ranges: readonly (readonly [Address, number])[] };

export const NO_TRUSTED_PROXY: TrustProxy = Object.freeze({ kind: 'none' });

export class TrustProxyValueError extends ProblemError<'CONFIG_INVALID'> {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
    this.name = 'TrustProxyValueError';
  }
}

const EXPECTED =
  'must be 1 (trust the first proxy hop), 0, or a comma-separated list of proxy addresses or CIDR ranges such as 127.0.0.1,10.0.0.0/8';

/** Parses the setting's value; a `TrustProxyValueError` says what is wrong with it. */
export function parseTrustProxy(value: string): TrustProxy {
  const v = value.trim();
  if (v === '0' || v === 'false') return NO_TRUSTED_PROXY;
  if (v === '1' || v === 'true') return Object.freeze({ kind: 'first-hop' });
  const ranges = v.split(',').map((item) => parseRange(item.trim()));
  return Object.freeze({ kind: 'addresses', ranges: Object.freeze(ranges) });
}

function parseRange(item: string): readonly [Address, number] {
  if (item === '') throw new TrustProxyValueError(`${EXPECTED} (an item of the list is empty)`);
  const [address, prefix, ...rest] = item.split('/');
  // Strict forms only: ipaddr.js would also take "127.1" or "0x7f.0.0.1", which no one means.
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address!);
  if (rest.length || (!v4 && !ipaddr.IPv6.isValid(address!)))
    throw new TrustProxyValueError(`${EXPECTED} ("${item}" is not one)`);
  let parsed: Address = ipaddr.parse(address!);
  const bits = parsed.kind() === 'ipv4' ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix))
    throw new TrustProxyValueError(`${EXPECTED} ("${item}" has no valid prefix length)`);
  let length = prefix === undefined ? bits : Number(prefix);
  if (length > bits) throw new TrustProxyValueError(`${EXPECTED} ("${item}": the prefix length is over ${bits})`);
  // Peers are compared in their IPv4 form when they are IPv4-mapped, so ranges are too.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() && length >= 96) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    length -= 96;
  }
  return Object.freeze([parsed, length] as const);
}
