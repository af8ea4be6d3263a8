// Which IP addresses outbound requests may reach: ordinary global unicast only. Ranges come from
// ipaddr.js `range()`; on top of it we name the documentation and benchmarking blocks, refuse all
// IPv6 outside 2000::/3, and judge the forms that carry an IPv4 address (IPv4-mapped, NAT64,
// 6to4, IPv4-compatible) by the address they carry, so ::ffff:127.0.0.1 is as loopback as
// 127.0.0.1. Special-purpose blocks that IANA calls globally reachable (AS112, AMT, ORCHIDv2) are
// refused too: no webhook receiver lives there, and a short allow-list is easier to trust.
import ipaddr from 'ipaddr.js';

export type AddressVerdict = { public: true } | { public: false; range: string };

const v4 = (cidr: string) => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

// Checked before ipaddr.js's own ranges, which file these under the vaguer 'reserved'.
const NAMED_V4: [ReturnType<typeof v4>, string][] = [
  [v4('192.0.2.0/24'), 'documentation'],
  [v4('198.51.100.0/24'), 'documentation'],
  [v4('203.0.113.0/24'), 'documentation'],
  [v4('198.18.0.0/15'), 'benchmarking'],
];
const NAMED_V6: [ReturnType<typeof v6>, string][] = [
  [v6('2001:db8::/32'), 'documentation'],
  [v6('3fff::/20'), 'documentation'],
];
const GLOBAL_UNICAST = v6('2000::/3');
const NAT64_WELL_KNOWN = v6('64:ff9b::/96');
const IPV4_COMPATIBLE = v6('::/96');

/** Classifies one IP address (any spelling ipaddr.js accepts, e.g. `127.1`, `0x7f.1`, `fe80::1%eth0`). */
export function classifyAddress(unsafeIp: string): AddressVerdict {
  if (!ipaddr.isValid(unsafeIp)) return { public: false, range: 'invalid' };
  const addr = ipaddr.parse(unsafeIp);
  if (addr.kind() === 'ipv4') return classifyV4(addr as ipaddr.IPv4);
  const verdict = classifyV6(addr as ipaddr.IPv6);
  // A zone id only means something on a local link, whatever the address.
  if (verdict.public && (addr as ipaddr.IPv6).zoneId) return { public: false, range: 'scoped' };
  return verdict;
}

function classifyV4(addr: ipaddr.IPv4): AddressVerdict {
  for (const [cidr, name] of NAMED_V4) if (addr.match(cidr)) return { public: false, range: name };
  const range = addr.range();
  return range === 'unicast' ? { public: true } : { public: false, range };
}

function classifyV6(addr: ipaddr.IPv6): AddressVerdict {
  for (const [cidr, name] of NAMED_V6) if (addr.match(cidr)) return { public: false, range: name };
  const range = addr.range();
  const p = addr.parts;
  const word = (i: number) => p[i] ?? 0;
  const v4At = (hi: number, lo: number) =>
    new ipaddr.IPv4([word(hi) >> 8, word(hi) & 0xff, word(lo) >> 8, word(lo) & 0xff]);
  // The embedded address decides, because that is where the packets end up.
  const carried = (form: string, inner: ipaddr.IPv4): AddressVerdict => {
    const verdict = classifyV4(inner);
    return verdict.public ? verdict : { public: false, range: `${form}(${verdict.range})` };
  };
  switch (range) {
    case 'ipv4Mapped':
      return carried('ipv4Mapped', v4At(6, 7));
    case 'rfc6052': {
      if (addr.match(NAT64_WELL_KNOWN)) return carried('nat64', v4At(6, 7));
      // 64:ff9b:1::/48 is for local use only (RFC 8215): never public, whatever it carries.
      const inner = classifyV4(v4At(6, 7));
      return { public: false, range: inner.public ? 'nat64LocalUse' : `nat64(${inner.range})` };
    }
    case 'rfc6145': {
      const inner = classifyV4(v4At(6, 7));
      return { public: false, range: inner.public ? 'ipv4Translated' : `ipv4Translated(${inner.range})` };
    }
    case '6to4':
      return carried('6to4', v4At(1, 2));
    case 'unicast':
      if (addr.match(GLOBAL_UNICAST)) return { public: true };
      if (addr.match(IPV4_COMPATIBLE)) {
        const inner = classifyV4(v4At(6, 7));
        return { public: false, range: inner.public ? 'ipv4Compatible' : `ipv4Compatible(${inner.range})` };
      }
      return { public: false, range: 'reserved' };
    default:
      return { public: false, range };
  }
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  uniqueLocal: 'a unique-local (private IPv6) address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  documentation: 'a documentation-only address',
  benchmarking: 'a benchmarking address',
  teredo: 'a Teredo tunnel address',
  scoped: 'a zone-scoped address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  nat64LocalUse: 'a local-use NAT64 address',
  ipv4Translated: 'an IPv4-translated address',
  ipv4Compatible: 'a deprecated IPv4-compatible address',
  invalid: 'not a valid IP address',
};

const FORM_WORDS: Record<string, string> = {
  ipv4Mapped: 'IPv4-mapped',
  nat64: 'NAT64',
  '6to4': '6to4',
  ipv4Translated: 'IPv4-translated',
  ipv4Compatible: 'IPv4-compatible',
};

/** Plain words for a range name, fit to follow "is": `a loopback address`, `an IPv4-mapped private address`. */
export function describeRange(range: string): string {
  const wrapped = /^(\w+)\((.+)\)$/.exec(range);
  if (wrapped) {
    const inner = describeRange(wrapped[2]!).replace(/^(a|an|the) /, '');
    const form = FORM_WORDS[wrapped[1]!] ?? wrapped[1]!;
    return `${article(form)} ${form} form of ${article(inner)} ${inner}`;
  }
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

const article = (word: string) => (/^[aeiouAEIOU]/.test(word) ? 'an' : 'a');

/** Whether two spellings name the same address (`::ffff:127.0.0.1` and `127.0.0.1` do). */
export function sameAddress(a: string, b: string): boolean {
  if (!ipaddr.isValid(a) || !ipaddr.isValid(b)) return false;
  return ipaddr.process(a).toString() === ipaddr.process(b).toString();
}
