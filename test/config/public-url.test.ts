// The public URL's one rule (src/config/public-url.ts), which the Node process and the edge
// Worker both call: how a configured URL is checked, and which URL wins.
import { describe, expect, it } from 'vitest';
import { checkBaseUrl, decidePublicUrl } from '../../src/config/public-url.ts';

describe('checkBaseUrl', () => {
  it('takes an absolute http(s) URL, without its trailing slashes', () => {
    expect(checkBaseUrl('https://api.example.com/')).toEqual({ ok: true, url: 'https://api.example.com' });
    expect(checkBaseUrl('http://localhost:8787/quire//')).toEqual({ ok: true, url: 'http://localhost:8787/quire' });
  });

  it('says what is wrong with anything else', () => {
    expect(checkBaseUrl('api.example.com')).toEqual({
      ok: false,
      problem: 'must be an absolute URL such as https://api.example.com',
    });
    expect(checkBaseUrl('ftp://files.example.com')).toEqual({ ok: false, problem: 'must use http or https' });
    expect(checkBaseUrl('https://api.example.com/?x=1')).toEqual({
      ok: false,
      problem: 'must not have a query or fragment',
    });
    expect(checkBaseUrl('https://api.example.com/#top')).toEqual({
      ok: false,
      problem: 'must not have a query or fragment',
    });
  });
});

describe('decidePublicUrl', () => {
  it('the configured URL, else the one the build was made for, else where the process is reached', () => {
    expect(decidePublicUrl('https://api.example.com', 'http://localhost:9000', 'http://localhost:8787')).toBe(
      'https://api.example.com',
    );
    expect(decidePublicUrl(null, 'http://localhost:9000', 'http://localhost:8787')).toBe('http://localhost:9000');
    expect(decidePublicUrl(null, null, 'http://localhost:8787')).toBe('http://localhost:8787');
  });
});
