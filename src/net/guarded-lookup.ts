// Name resolution with the public-address rule built in. As a socket's `lookup` it checks the very
// addresses the socket then connects to, so an answer that changes between a check and the
// connection (DNS rebinding) gains nothing. Also used for save-time validation of a host.
import dns from 'node:dns';
import net from 'node:net';
import { classifyAddress, describeRange } from './address-policy.ts';
import { NetFailure } from './net-errors.ts';
import { WEBHOOK_TARGETS } from './target-policy.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** Node's resolver (getaddrinfo: /etc/hosts, then DNS), every answer, in the order given. */
export const systemResolver: Resolver = async (host) => {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface ResolveOptions {
  resolver: Resolver;
  allowPrivate: boolean;
  /** Ends a refusal; default: webhook targets must be public. */
  mustBePublic?: string;
}

/** Resolves `host`; refuses the whole answer if ANY address is not public (a mixed answer is an attack, not a fallback). */
export async function resolvePublicAddresses(
  host: string,
  { resolver, allowPrivate, mustBePublic = WEBHOOK_TARGETS.mustBePublic }: ResolveOptions,
): Promise<{ ok: true; addresses: ResolvedAddress[] } | { ok: false; error: NetFailure }> {
  let found: ResolvedAddress[];
  try {
    found = await resolver(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
    return { ok: false, error: new NetFailure('dns', `${host} could not be resolved (${code})`, { cause: error }) };
  }
  if (!Array.isArray(found) || found.length === 0) {
    return { ok: false, error: new NetFailure('dns', `${host} resolves to no addresses (ENOTFOUND)`) };
  }
  const addresses: ResolvedAddress[] = [];
  for (const { address } of found) {
    // The family comes from the address itself, not from what the resolver claims.
    const family = net.isIP(address);
    if (family === 0)
      return {
        ok: false,
        error: new NetFailure('dns', `${host} resolved to ${JSON.stringify(address)}, which is not an IP address`),
      };
    const verdict = classifyAddress(address);
    if (!verdict.public && !allowPrivate) {
      return {
        ok: false,
        error: new NetFailure(
          'non_public',
          `${host} resolves to ${address}, ${describeRange(verdict.range)}; ${mustBePublic}`,
        ),
      };
    }
    addresses.push({ address, family: family === 6 ? 6 : 4 });
  }
  return { ok: true, addresses };
}

type AllCallback = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/**
 * A `lookup` for net/tls sockets. `onApproved` hears every address handed to a socket, so the
 * connect hook can confirm the socket really went to one of them.
 */
export function createGuardedLookup(
  opts: ResolveOptions & { onApproved: (addresses: string[]) => void },
): net.LookupFunction {
  return function guardedLookup(hostname, options, callback) {
    void resolvePublicAddresses(hostname, opts).then((result) => {
      // Out of the promise chain, so an exception in Node's callback is not swallowed as a rejection.
      process.nextTick(() => {
        if (!result.ok) return callback(result.error, '', 0);
        const wanted =
          options.family === 4 || options.family === 'IPv4'
            ? 4
            : options.family === 6 || options.family === 'IPv6'
              ? 6
              : 0;
        const usable = result.addresses.filter((a) => wanted === 0 || a.family === wanted);
        const first = usable[0];
        if (!first)
          return callback(new NetFailure('dns', `${hostname} has no IPv${wanted} address (ENOTFOUND)`), '', 0);
        opts.onApproved(usable.map((a) => a.address));
        // With autoSelectFamily (Node 20's default) net asks for every address and races them.
        if (options.all) return (callback as unknown as AllCallback)(null, usable);
        callback(null, first.address, first.family);
      });
    });
  };
}
