import { describe, expect, it } from 'vitest';
import { clientKey, UNKNOWN_CLIENT } from '../../src/server/client-address.ts';

describe('clientKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb::9')).toBe(clientKey('2001:db8:1:2:aaaa::1'));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
  });

  it('puts requests without a usable address in one shared bucket', () => {
    expect(clientKey(undefined)).toBe(UNKNOWN_CLIENT);
    expect(clientKey('not an address')).toBe(UNKNOWN_CLIENT);
  });
});
