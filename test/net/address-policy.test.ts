import { describe, expect, it } from 'vitest';
import { classifyAddress, describeRange, sameAddress } from '../../src/net/address-policy.ts';

// [address, expected range]. Every range the client must refuse, with both edges where it matters.
const NON_PUBLIC: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.5', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'], // cloud metadata
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  // Odd IPv4 spellings name the same addresses.
  ['2130706433', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['017700000001', 'loopback'],
  ['127.1', 'loopback'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fd00::1', 'uniqueLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard'],
  ['::ffff:127.0.0.1', 'ipv4Mapped(loopback)'],
  ['::ffff:7f00:1', 'ipv4Mapped(loopback)'],
  ['::ffff:10.1.2.3', 'ipv4Mapped(private)'],
  ['::ffff:169.254.169.254', 'ipv4Mapped(linkLocal)'],
  ['::ffff:0:7f00:1', 'ipv4Translated(loopback)'],
  ['::7f00:1', 'ipv4Compatible(loopback)'],
  ['64:ff9b::a00:1', 'nat64(private)'],
  ['64:ff9b::127.0.0.1', 'nat64(loopback)'],
  ['64:ff9b:1::a9fe:a9fe', 'nat64(linkLocal)'],
  ['64:ff9b:1::808:808', 'nat64LocalUse'], // local-use prefix: never public, whatever it carries
  ['2002:7f00:1::', '6to4(loopback)'],
  ['2002:c0a8:101::1', '6to4(private)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:2::1', 'benchmarking'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['4000::1', 'reserved'], // outside 2000::/3, not allocated
  ['2606:4700::1%eth0', 'scoped'],
  ['not-an-ip', 'invalid'],
  ['', 'invalid'],
  ['1.2.3.256', 'invalid'],
  ['[::1]', 'invalid'], // brackets belong to URLs, not addresses
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '151.101.1.69',
  '172.32.0.1', // just past 172.16/12
  '100.128.0.1', // just past 100.64/10
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('classifyAddress', () => {
  it.each(NON_PUBLIC)('%s is not public (%s)', (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ public: false, range });
  });

  it.each(PUBLIC)('%s is public', (ip) => {
    expect(classifyAddress(ip)).toEqual({ public: true });
  });
});

describe('describeRange', () => {
  it.each([
    ['loopback', 'a loopback address'],
    ['private', 'a private address'],
    ['linkLocal', 'a link-local address'],
    ['ipv4Mapped(loopback)', 'an IPv4-mapped form of a loopback address'],
    ['nat64(private)', 'a NAT64 form of a private address'],
    ['6to4(linkLocal)', 'a 6to4 form of a link-local address'],
    ['segmentRouting', 'a special-purpose address (segmentRouting)'],
  ])('%s reads as "%s"', (range, words) => {
    expect(describeRange(range)).toBe(words);
  });
});

describe('sameAddress', () => {
  it('treats IPv4-mapped and plain spellings as one address, and nothing else', () => {
    expect(sameAddress('::ffff:127.0.0.1', '127.0.0.1')).toBe(true);
    expect(sameAddress('2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111')).toBe(true);
    expect(sameAddress('127.0.0.1', '127.0.0.2')).toBe(false);
    expect(sameAddress('127.0.0.1', 'localhost')).toBe(false);
  });
});
