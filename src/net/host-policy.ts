// Judges a host as written, before any DNS: an IP literal by its range, a name by whether it can
// only mean something inside a local network. Shared by the URL check and save-time resolution.
// Names are a first filter only; the verdict that counts is on the resolved addresses.
import ipaddr from 'ipaddr.js';
import { classifyAddress, describeRange } from './address-policy.ts';

import { WEBHOOK_TARGETS } from './target-policy.ts';

export type HostCheck = { ok: true; host: string; ip: string | null } | { ok: false; message: string };

// Special-use and de-facto local suffixes (RFC 6761, 6762, 8375; ICANN's .internal).
const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/;

/**
 * `unsafeHost` is a URL hostname (IPv6 in brackets or not). `ip` is the canonical address when
 * the host is an IP literal in any spelling ipaddr.js reads (`127.1`, `2130706433`), else null.
 */
export function checkHost(
  unsafeHost: string,
  { allowPrivate = false, mustBePublic = WEBHOOK_TARGETS.mustBePublic } = {},
): HostCheck {
  const host = unsafeHost.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (ipaddr.isValid(host)) {
    const ip = ipaddr.parse(host).toString();
    const verdict = classifyAddress(host);
    if (!verdict.public && !allowPrivate) {
      return { ok: false, message: `${host} is ${describeRange(verdict.range)}; ${mustBePublic}` };
    }
    return { ok: true, host, ip };
  }
  const name = host.replace(/\.+$/, '');
  if (!allowPrivate && LOCAL_NAME.test(name)) {
    return { ok: false, message: `${name} is a local-only host name; ${mustBePublic}` };
  }
  // Single-label names reach hosts through the resolver's search domains, i.e. the local network.
  if (!allowPrivate && !name.includes('.')) {
    return {
      ok: false,
      message: `${name} is a single-label host name, which only resolves on a local network; ${mustBePublic}`,
    };
  }
  return { ok: true, host, ip: null };
}
