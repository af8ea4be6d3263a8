import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/net/address-policy.ts';
import { checkTargetUrl } from '../../src/net/target-url.ts';

const NON_PUBLIC: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.5', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', ''],
  ['198.18.0.1', ''],
  ['198.51.100.7', ''],
  ['203.0.113.9', ''],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fd00::1', 'uniqueLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'linkLocal'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'ipv4Mapped(loopback)'],
  ['::ffff:7f00:1', 'ipv4Mapped(loopback)'],
  ['::ffff:10.1.2.3', 'ipv4Mapped(private)'],
  ['::ffff:169.254.169.254', 'ipv4Mapped(linkLocal)'],
  ['64:ff9b::a00:1', 'nat64(private)'],
  ['64:ff9b::127.0.0.1', 'nat64(loopback)'],
  ['64:ff9b:1::a9fe:a9fe', 'nat64(linkLocal)'],
  ['2002:7f00:1::', '6to4(loopback)'],
  ['2002:c0a8:101::1', '6to4(private)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:db8::1', ''],
  ['4000::1', 'reserved'],
  ['not-an-ip', 'invalid'],
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '151.101.1.69', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];

describe('classifyAddress', () => {
  it.each(NON_PUBLIC)('%s is not public (%s)', (ip, range) => {
    const v = classifyAddress(ip);
    expect(v.public).toBe(false);
    if (range && !v.public) expect(v.range).toBe(range);
  });
  it.each(PUBLIC)('%s is public', (ip) => expect(classifyAddress(ip)).toEqual({ public: true }));
});

describe('checkTargetUrl', () => {
  it.each([
    ['http://hooks.example.com/x', 'URL_NOT_HTTPS'],
    ['ftp://hooks.example.com/x', 'URL_NOT_HTTPS'],
    ['https://user:pw@hooks.example.com/x', 'URL_HAS_CREDENTIALS'],
    ['https://token@hooks.example.com/x', 'URL_HAS_CREDENTIALS'],
    ['not a url', 'URL_INVALID'],
    ['https://127.0.0.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://2130706433/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://0x7f.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://017700000001/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://127.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://0/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[::1]/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[::ffff:127.0.0.1]/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[fd12::1]:8443/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://169.254.169.254/latest/meta-data/', 'URL_HOST_NOT_PUBLIC'],
    ['https://localhost/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://app.localhost/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://printer.local/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://db.internal/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://router.home.arpa/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://intranet/x', 'URL_HOST_NOT_PUBLIC'],
  ])('%s → %s', (url, code) => {
    const r = checkTargetUrl(url);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.message.length).toBeGreaterThan(10);
    }
  });

  it('accepts public https URLs, and loopback only with allowPrivate', () => {
    expect(checkTargetUrl('https://hooks.example.com/quire?x=1')).toMatchObject({ ok: true });
    expect(checkTargetUrl('https://8.8.8.8/x')).toMatchObject({ ok: true });
    expect(checkTargetUrl('https://127.0.0.1:8443/x', { allowPrivate: true })).toMatchObject({ ok: true });
    expect(checkTargetUrl('http://127.0.0.1:8443/x', { allowPrivate: true })).toMatchObject({ ok: false, code: 'URL_NOT_HTTPS' });
  });
});
