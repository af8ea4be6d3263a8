import { describe, expect, it } from 'vitest';
import { checkTargetUrl } from '../../src/net/target-url.ts';

describe('checkTargetUrl', () => {
  it.each([
    ['not a url', 'URL_INVALID'],
    ['/relative/path', 'URL_INVALID'],
    ['http://hooks.example.com/x', 'URL_NOT_HTTPS'],
    ['ftp://hooks.example.com/x', 'URL_NOT_HTTPS'],
    ['javascript:alert(1)', 'URL_NOT_HTTPS'],
    ['https://user:pw@hooks.example.com/x', 'URL_HAS_CREDENTIALS'],
    ['https://token@hooks.example.com/x', 'URL_HAS_CREDENTIALS'],
    ['https://127.0.0.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://2130706433/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://0x7f.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://017700000001/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://127.1/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://0/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://10.1.2.3:8443/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://169.254.169.254/latest/meta-data/', 'URL_HOST_NOT_PUBLIC'],
    ['https://[::1]/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[::ffff:127.0.0.1]/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[fd12::1]:8443/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://[64:ff9b::a00:1]/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://localhost/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://LOCALHOST./x', 'URL_HOST_NOT_PUBLIC'],
    ['https://app.localhost/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://printer.local/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://db.internal/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://metadata.google.internal/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://router.home.arpa/x', 'URL_HOST_NOT_PUBLIC'],
    ['https://intranet/x', 'URL_HOST_NOT_PUBLIC'],
  ])('%s is refused with %s', (url, code) => {
    expect(checkTargetUrl(url)).toMatchObject({ ok: false, code });
  });

  it('says why in plain words', () => {
    expect(checkTargetUrl('http://hooks.example.com/x')).toMatchObject({
      message: expect.stringContaining('webhook URLs must use https'),
    });
    expect(checkTargetUrl('https://127.0.0.1/x')).toMatchObject({
      message: '127.0.0.1 is a loopback address; webhook targets must be public',
    });
    // The message names the address the odd spelling really means.
    expect(checkTargetUrl('https://0x7f.1/x')).toMatchObject({
      message: expect.stringMatching(/^127\.0\.0\.1 is a loopback address/),
    });
    expect(checkTargetUrl('https://[::ffff:127.0.0.1]/x')).toMatchObject({
      message: expect.stringContaining('an IPv4-mapped form of a loopback address'),
    });
    expect(checkTargetUrl('https://db.internal/x')).toMatchObject({
      message: expect.stringContaining('db.internal is a local-only host name'),
    });
    expect(checkTargetUrl('https://a:b@hooks.example.com/')).toMatchObject({
      message: expect.stringContaining('user name or password'),
    });
  });

  it('accepts public https URLs and keeps them intact', () => {
    const r = checkTargetUrl('https://hooks.example.com:8443/quire?site=a#frag');
    expect(r.ok && r.url.href).toBe('https://hooks.example.com:8443/quire?site=a#frag');
    expect(checkTargetUrl('https://8.8.8.8/x')).toMatchObject({ ok: true });
    expect(checkTargetUrl('https://[2606:4700:4700::1111]/x')).toMatchObject({ ok: true });
    // Not a suffix match on "local": only the label counts.
    expect(checkTargetUrl('https://hooks.notlocal.com/x')).toMatchObject({ ok: true });
  });

  it('lets allowPrivate through loopback and local names, but never plain http or credentials', () => {
    expect(checkTargetUrl('https://127.0.0.1:8443/x', { allowPrivate: true })).toMatchObject({ ok: true });
    expect(checkTargetUrl('https://localhost/x', { allowPrivate: true })).toMatchObject({ ok: true });
    expect(checkTargetUrl('http://127.0.0.1:8443/x', { allowPrivate: true })).toMatchObject({
      ok: false,
      code: 'URL_NOT_HTTPS',
    });
    expect(checkTargetUrl('https://u:p@127.0.0.1/x', { allowPrivate: true })).toMatchObject({
      ok: false,
      code: 'URL_HAS_CREDENTIALS',
    });
  });
});
