// What a request's forwarded headers are taken to mean, for each QUIRE_TRUST_PROXY setting: the
// client's address (rightmost hop that is not a trusted proxy) and the origin the client used.
import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/config/trust-proxy.ts';
import { forwardedClientAddress, forwardedOrigin, isTrustedProxy } from '../../src/server/trusted-proxy.ts';

const NONE = parseTrustProxy('0');
const ONE_HOP = parseTrustProxy('1');
const LIST = parseTrustProxy('127.0.0.1,10.0.0.0/8,fd00::/8');

describe('isTrustedProxy', () => {
  it('trusts no peer by default, every peer with 1, and the listed ranges (IPv4-mapped too)', () => {
    expect(isTrustedProxy(NONE, '127.0.0.1')).toBe(false);
    expect(isTrustedProxy(ONE_HOP, '203.0.113.7')).toBe(true);
    expect(isTrustedProxy(LIST, '127.0.0.1')).toBe(true);
    expect(isTrustedProxy(LIST, '::ffff:10.1.2.3')).toBe(true);
    expect(isTrustedProxy(LIST, 'fd00::5')).toBe(true);
    expect(isTrustedProxy(LIST, '127.0.0.2')).toBe(false);
    expect(isTrustedProxy(LIST, '::1')).toBe(false);
    expect(isTrustedProxy(LIST, undefined)).toBe(false);
  });
});

describe('forwardedClientAddress', () => {
  it('is the peer whatever the header says, unless the peer is a trusted proxy', () => {
    expect(forwardedClientAddress(NONE, '127.0.0.1', '203.0.113.7')).toBe('127.0.0.1');
    expect(forwardedClientAddress(LIST, '192.0.2.9', '203.0.113.7')).toBe('192.0.2.9');
  });

  it('takes the rightmost hop that is not a trusted proxy; with 1, the rightmost hop', () => {
    expect(forwardedClientAddress(LIST, '127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    expect(forwardedClientAddress(LIST, '127.0.0.1', 'spoofed, 198.51.100.1, 203.0.113.7, 10.0.0.2')).toBe(
      '203.0.113.7',
    );
    expect(forwardedClientAddress(ONE_HOP, '127.0.0.1', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(forwardedClientAddress(ONE_HOP, '127.0.0.1', '10.0.0.2')).toBe('10.0.0.2');
  });

  it('reads hops with ports and brackets, and stops at one that is not an address', () => {
    expect(forwardedClientAddress(LIST, '127.0.0.1', '203.0.113.7:51234')).toBe('203.0.113.7');
    expect(forwardedClientAddress(LIST, '127.0.0.1', '[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(forwardedClientAddress(LIST, '127.0.0.1', 'unknown')).toBe('127.0.0.1');
    expect(forwardedClientAddress(LIST, '127.0.0.1', 'unknown, 10.0.0.2')).toBe('10.0.0.2');
    // Every hop a trusted proxy: the farthest one is the best known.
    expect(forwardedClientAddress(LIST, '127.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3');
    expect(forwardedClientAddress(LIST, '127.0.0.1', undefined)).toBe('127.0.0.1');
  });
});

describe('forwardedOrigin', () => {
  const arrived = new URL('http://127.0.0.1:8787/admin/sign-in');
  it('is the URL the request arrived with unless a trusted proxy says otherwise', () => {
    expect(forwardedOrigin(NONE, '127.0.0.1', arrived, { proto: 'https', host: 'quire.test' })).toBe(
      'http://127.0.0.1:8787',
    );
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'https', host: 'quire.test' })).toBe(
      'https://quire.test',
    );
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'https', host: 'quire.test:443' })).toBe(
      'https://quire.test',
    );
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'https', host: 'quire.test:8443' })).toBe(
      'https://quire.test:8443',
    );
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'HTTPS' })).toBe('https://127.0.0.1:8787');
    // Appended lists: the nearest proxy's item.
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'http, https', host: 'evil.test, quire.test' })).toBe(
      'https://quire.test',
    );
  });

  it('ignores values that are not a scheme or a bare host', () => {
    expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { proto: 'javascript' })).toBe('http://127.0.0.1:8787');
    for (const host of ['evil.test/path', 'user@evil.test', 'evil.test?x', 'ev il.test', 'evil.test:99999']) {
      expect(forwardedOrigin(LIST, '127.0.0.1', arrived, { host })).toBe('http://127.0.0.1:8787');
    }
  });
});
