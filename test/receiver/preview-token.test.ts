// Preview tokens: made by Quire (src/keys/preview-token.ts), checked by the receiver kit's own,
// self-contained verifyPreviewToken. The two are separate code; these tests hold them together.
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createPreviewToken, parseDuration, previewLink } from '../../src/keys/preview-token.ts';
import { verifyPreviewToken } from '../../src/receiver/verify-webhook.ts';

const generations = new Map<string, number>();
const keyring = createKeyring('a-server-secret-that-stays-the-same-0123456789', { generationOf: (name) => generations.get(name) ?? 1 });
const key = keyring.previewKeyFor('one');
const NOW = Date.parse('2026-11-26T10:00:00Z');
const HOUR = 3_600_000;
const make = (target = { site: 'one', slug: 'draft-post' }, ttl = 24 * HOUR, signWith = key) => createPreviewToken(signWith, target, ttl, NOW).token;
const check = (token: string, at = NOW + HOUR, slug = 'draft-post', previewKey = key) => verifyPreviewToken(token, previewKey, { slug, site: 'one', now: () => at });

describe('preview tokens', () => {
  it('a fresh token for this article and site is accepted, with its expiry', () => {
    const { token, expiresAt } = createPreviewToken(key, { site: 'one', slug: 'draft-post' }, 24 * HOUR, NOW);
    expect(expiresAt).toBe('2026-11-27T10:00:00Z');
    expect(check(token)).toEqual({ ok: true, site: 'one', slug: 'draft-post', expiresAt });
  });

  it('expires at its time, to the second', () => {
    const token = make(undefined, HOUR);
    expect(check(token, NOW + HOUR - 1000).ok).toBe(true);
    expect(check(token, NOW + HOUR)).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('is bound to one article and one site', () => {
    expect(check(make(), NOW, 'another-post')).toMatchObject({ ok: false, reason: 'other-article' });
    // Signed with site one's key but naming site two: refused for site one.
    expect(check(make({ site: 'two', slug: 'draft-post' }))).toMatchObject({ ok: false, reason: 'other-site' });
  });

  it('refuses forgeries: another key, an edited payload, a rotated key, a public key', () => {
    expect(check(make(undefined, undefined, keyring.previewKeyFor('two')))).toMatchObject({ ok: false, reason: 'signature' });
    const [payload, signature] = make().split('.') as [string, string];
    const edited = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('draft-post', 'other-post')).toString('base64url');
    expect(check(`${edited}.${signature}`, NOW, 'other-post')).toMatchObject({ ok: false, reason: 'signature' });
    const token = make();
    generations.set('one.preview', 2);
    try {
      expect(check(token, NOW, 'draft-post', keyring.previewKeyFor('one'))).toMatchObject({ ok: false, reason: 'signature' });
    } finally {
      generations.delete('one.preview');
    }
    expect(check(make(undefined, undefined, keyring.keyFor('one')))).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('checks the signature before reading anything in the token', () => {
    // A payload that is not JSON with a wrong signature is a signature failure, never parsed.
    const garbage = `${Buffer.from('{not json').toString('base64url')}.${'A'.repeat(43)}`;
    expect(check(garbage)).toMatchObject({ ok: false, reason: 'signature' });
  });

  it.each(['', 'abc', 'a.b.c', `x.${'A'.repeat(42)}`, `${'A'.repeat(2000)}.${'A'.repeat(43)}`, `a b.${'A'.repeat(43)}`])('refuses the malformed token %j', (token) => {
    expect(check(token)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('a preview key that is not one, or is another site\'s, is a programming error', () => {
    expect(() => check(make(), NOW, 'draft-post', keyring.keyFor('one'))).toThrow(/not a Quire preview key/);
    expect(() => check(make(), NOW, 'draft-post', keyring.previewKeyFor('two'))).toThrow(/belongs to site "two"/);
  });

  it('makes links from the site\'s template, encoded', () => {
    expect(previewLink('https://s.example.com/api/preview?slug={slug}&token={token}', 'a-b', 'x.y-_')).toBe('https://s.example.com/api/preview?slug=a-b&token=x.y-_');
    expect(previewLink('https://s.example.com/p/{slug}?t={token}', 'a', 'x&y=z')).toBe('https://s.example.com/p/a?t=x%26y%3Dz');
  });

  it('reads durations, and refuses a link that would never end', () => {
    expect([parseDuration('24h'), parseDuration('90m'), parseDuration('7d'), parseDuration('3600'), parseDuration('1 week')]).toEqual([24 * HOUR, 90 * 60_000, 7 * 24 * HOUR, HOUR, null]);
    expect(() => createPreviewToken(key, { site: 'one', slug: 'a' }, 31 * 24 * HOUR, NOW)).toThrow(RangeError);
    expect(() => createPreviewToken(key, { site: 'one', slug: 'a' }, 0, NOW)).toThrow(RangeError);
  });
});
