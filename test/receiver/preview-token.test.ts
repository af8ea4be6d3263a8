// Preview tokens: made by Quire (src/keys/preview-token.ts), checked by the receiver kit's own,
// self-contained verifyPreviewToken. The two are separate code; these tests hold them together.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { branchProblem } from '../../src/follow/follow-source.ts';
import { createPreviewToken, previewLink } from '../../src/keys/preview-token.ts';
import { isPreviewRef } from '../../src/receiver/verify-steps.ts';
import { parseDuration } from '../../src/text/duration.ts';
import { verifyPreviewToken } from '../../src/receiver/verify-webhook.ts';

const generations = new Map<string, number>();
const keyring = createKeyring('a-server-secret-that-stays-the-same-0123456789', {
  generationOf: (name) => generations.get(name) ?? 1,
});
const key = keyring.previewKeyFor('one');
const NOW = Date.parse('2026-11-26T10:00:00Z');
const HOUR = 3_600_000;
const make = (target = { site: 'one', slug: 'draft-post' }, ttl = 24 * HOUR, signWith = key) =>
  createPreviewToken(signWith, target, ttl, NOW).token;
/** A token over any payload text, signed as Quire signs (to reach the checks behind the signature). */
const signedToken = (payload: string) =>
  `${payload}.${createHmac('sha256', key).update(`quire-preview-token\0${payload}`).digest('base64url')}`;
const check = (token: string, at = NOW + HOUR, slug = 'draft-post', previewKey = key) =>
  verifyPreviewToken(token, previewKey, { slug, site: 'one', now: () => at });

describe('preview tokens', () => {
  it('a fresh token for this article and site is accepted, with its expiry', () => {
    const { token, expiresAt } = createPreviewToken(key, { site: 'one', slug: 'draft-post' }, 24 * HOUR, NOW);
    expect(expiresAt).toBe('2026-11-27T10:00:00Z');
    expect(check(token)).toEqual({ ok: true, site: 'one', slug: 'draft-post', expiresAt });
  });

  it('a token that names a branch (quire preview --ref) is accepted with its ref; one without has none', () => {
    const { token, expiresAt } = createPreviewToken(
      key,
      { site: 'one', slug: 'draft-post', ref: 'content/spring' },
      24 * HOUR,
      NOW,
    );
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({
      v: 2,
      ref: 'content/spring',
    });
    expect(check(token)).toEqual({ ok: true, site: 'one', slug: 'draft-post', expiresAt, ref: 'content/spring' });
    expect(check(make())).not.toHaveProperty('ref');
    expect(check(make({ site: 'one', slug: 'draft-post', ref: null } as never))).not.toHaveProperty('ref');
  });

  it.each([
    ['version 1 with a ref (a kit of version 1 would ignore it)', { v: 1, ref: 'content/spring' }],
    ['version 2 without a ref', { v: 2 }],
    ['version 2 with a ref that is no branch name', { v: 2, ref: '../../etc' }],
    ['version 2 with a ref that is not a string', { v: 2, ref: ['main'] }],
    ['version 3', { v: 3, ref: 'main' }],
  ])('refuses a signed token of %s', (_name, claims) => {
    const exp = NOW / 1000 + 7200;
    const payload = Buffer.from(JSON.stringify({ site: 'one', slug: 'draft-post', exp, ...claims })).toString(
      'base64url',
    );
    expect(check(signedToken(payload))).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it("reads a ref as Quire's branch names are read (the kit's own check, held to follow-source.ts)", () => {
    const names = [
      'main',
      'content/spring',
      'feature/a.b_c-d',
      'x'.repeat(200),
      'x'.repeat(201),
      '',
      '-x',
      '/x',
      'x/',
      'x.',
      'x.lock',
      'a..b',
      'a//b',
      '.hidden',
      'a/.b',
      'a b',
      'a:b',
      'a~b',
      'ä',
      'a\nb',
    ];
    for (const name of names) expect([name, isPreviewRef(name)]).toEqual([name, branchProblem(name) === null]);
    expect(isPreviewRef(undefined)).toBe(false);
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
    expect(check(make(undefined, undefined, keyring.previewKeyFor('two')))).toMatchObject({
      ok: false,
      reason: 'signature',
    });
    const [payload, signature] = make().split('.') as [string, string];
    const edited = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace('draft-post', 'other-post'),
    ).toString('base64url');
    expect(check(`${edited}.${signature}`, NOW, 'other-post')).toMatchObject({ ok: false, reason: 'signature' });
    const token = make();
    generations.set('one.preview', 2);
    try {
      expect(check(token, NOW, 'draft-post', keyring.previewKeyFor('one'))).toMatchObject({
        ok: false,
        reason: 'signature',
      });
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

  it.each([
    '',
    'abc',
    'a.b.c',
    `x.${'A'.repeat(42)}`,
    `${'A'.repeat(2000)}.${'A'.repeat(43)}`,
    `a b.${'A'.repeat(43)}`,
  ])('refuses the malformed token %j', (token) => {
    expect(check(token)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  // A receiver that keeps a list of used tokens must see one spelling per token: the last
  // character of 43 base64url characters carries 2 unused bits, so 4 spellings decode alike.
  it('accepts only the canonical spelling of a token (no other spelling of the same bytes)', () => {
    const token = make();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const spellings = [0, 1, 2, 3].map((low) => `${token.slice(0, -1)}${alphabet[(last & ~3) | low]}`);
    expect(spellings.filter((t) => t !== token)).toHaveLength(3);
    for (const t of spellings)
      expect(check(t)).toMatchObject(t === token ? { ok: true } : { ok: false, reason: 'malformed' });
    // A payload spelled non-canonically, even when signed, is not a token Quire makes.
    // One byte past a multiple of three leaves the last character 4 unused bits.
    let json = JSON.stringify({ v: 1, site: 'one', slug: 'draft-post', exp: NOW / 1000 + 7200 });
    while (json.length % 3 !== 1) json += ' ';
    const payload = Buffer.from(json).toString('base64url');
    const lastDigit = alphabet.indexOf(payload.at(-1)!);
    const loose = `${payload.slice(0, -1)}${alphabet[lastDigit | 1]}`;
    expect(check(signedToken(payload))).toMatchObject({ ok: true });
    expect(check(signedToken(loose))).toMatchObject({ ok: false, reason: 'malformed' });
    expect(check(`${token}=`)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it.each([Number.MAX_SAFE_INTEGER, 1e13, 253402300800, -1e13, -1, 1.5, '1893456000', null])(
    'refuses a signed token whose exp is %j, without throwing',
    (exp) => {
      const payload = Buffer.from(JSON.stringify({ v: 1, site: 'one', slug: 'draft-post', exp })).toString('base64url');
      expect(check(signedToken(payload))).toMatchObject({ ok: false, reason: 'malformed' });
    },
  );

  it('accepts an exp up to the last second of the year 9999', () => {
    const payload = Buffer.from(JSON.stringify({ v: 1, site: 'one', slug: 'draft-post', exp: 253402300799 })).toString(
      'base64url',
    );
    expect(check(signedToken(payload))).toEqual({
      ok: true,
      site: 'one',
      slug: 'draft-post',
      expiresAt: '9999-12-31T23:59:59Z',
    });
  });

  it("a preview key that is not one, or is another site's, is a programming error", () => {
    expect(() => check(make(), NOW, 'draft-post', keyring.keyFor('one'))).toThrow(/not a Quire preview key/);
    expect(() => check(make(), NOW, 'draft-post', keyring.previewKeyFor('two'))).toThrow(/belongs to site "two"/);
  });

  it("makes links from the site's template, encoded", () => {
    expect(previewLink('https://s.example.com/api/preview?slug={slug}&token={token}', 'a-b', 'x.y-_')).toBe(
      'https://s.example.com/api/preview?slug=a-b&token=x.y-_',
    );
    expect(previewLink('https://s.example.com/p/{slug}?t={token}', 'a', 'x&y=z')).toBe(
      'https://s.example.com/p/a?t=x%26y%3Dz',
    );
  });

  it('reads durations, and refuses a link that would never end', () => {
    expect([
      parseDuration('24h'),
      parseDuration('90m'),
      parseDuration('7d'),
      parseDuration('3600'),
      parseDuration('1 week'),
    ]).toEqual([24 * HOUR, 90 * 60_000, 7 * 24 * HOUR, HOUR, null]);
    expect(() => createPreviewToken(key, { site: 'one', slug: 'a' }, 31 * 24 * HOUR, NOW)).toThrow(RangeError);
    expect(() => createPreviewToken(key, { site: 'one', slug: 'a' }, 0, NOW)).toThrow(RangeError);
  });
});
