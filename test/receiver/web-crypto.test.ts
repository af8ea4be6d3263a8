// `quire/receiver/web` (Web Crypto) gives exactly the answers of `quire/receiver` (node:crypto):
// both variants over the same vectors — good, forged, tampered, replayed, re-serialized, bearer
// only, malformed — for webhooks and preview tokens; and the built module runs with no Node
// built-in (in a V8 context that has only what a Worker has). Real deliveries: receiver-kit.test.ts.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { buildReceiver } from '../../bin/build-client.js';
import { deliveryHeaders } from '../../src/delivery/signing.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { createPreviewToken } from '../../src/keys/preview-token.ts';
import * as node from '../../src/receiver/verify-webhook.ts';
import * as web from '../../src/receiver/verify-webhook-web.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const PLAIN = 'a-plain-secret-of-enough-length';
const BODY = Buffer.from(
  '{"event":"updated","article":{"id":"a","slug":"a","title":"Caf\\u00e9 \\"x\\"","status":"published","metaDescription":"","mdx":"# A","html":"<h1>A</h1>","imageUrl":"","imageAlt":""}}',
);
const SENT = 1_700_000_000;
const sign = (body: Buffer, secret = SECRET, at = SENT) =>
  deliveryHeaders({ body, secret, event: 'updated', deliveryId: 'dlv_1', timestampSec: at, attempt: 1 });
const at = (sec: number) => ({ now: () => (SENT + sec) * 1000 });

type Vector = [
  name: string,
  body: Buffer | string | Uint8Array,
  headers: Record<string, string> | Headers,
  secret: string,
  options: node.VerifyOptions,
];

function webhookVectors(): Vector[] {
  const h = sign(BODY);
  const { 'webhook-signature': _s, 'webhook-timestamp': _t, 'webhook-id': _i, ...bodyOnly } = h;
  const { Authorization: _a, ...noBearer } = sign(BODY, OTHER);
  const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString())));
  const tampered = Buffer.from(BODY.toString().replace('<h1>A</h1>', '<h1>B</h1>'));
  const junk = Buffer.from('{"hello":1}');
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), BODY]);
  return [
    ['signed', BODY, h, SECRET, at(3)],
    ['signed, as a string body', BODY.toString('utf8'), h, SECRET, at(3)],
    ['signed, Fetch Headers', new Uint8Array(BODY), new Headers(h), SECRET, at(3)],
    ['a plain (not whsec_) secret', BODY, sign(BODY, PLAIN), PLAIN, at(3)],
    ['another secret', BODY, sign(BODY, OTHER), SECRET, at(3)],
    ['another secret, no bearer', BODY, noBearer, SECRET, at(3)],
    ['re-serialized JSON', reserialized, h, SECRET, at(3)],
    ['tampered body', tampered, h, SECRET, at(3)],
    [
      'truncated X-Quire-Signature',
      BODY,
      { ...h, 'X-Quire-Signature': h['X-Quire-Signature']!.slice(0, -2) },
      SECRET,
      at(3),
    ],
    ['malformed X-Quire-Signature', BODY, { ...h, 'X-Quire-Signature': 'md5=abc' }, SECRET, at(3)],
    ['at the edge of the tolerance', BODY, h, SECRET, at(300)],
    ['replayed', BODY, h, SECRET, at(301)],
    ['from the future', BODY, h, SECRET, at(-301)],
    ['wider tolerance', BODY, h, SECRET, { ...at(3600), toleranceSec: 7200 }],
    ['re-dated', BODY, { ...h, 'webhook-timestamp': String(SENT + 600) }, SECRET, at(600)],
    ['timestamp not a number', BODY, { ...h, 'webhook-timestamp': '12a' }, SECRET, at(3)],
    ['undated', BODY, bodyOnly, SECRET, at(3)],
    ['undated, allowed', BODY, bodyOnly, SECRET, { ...at(3), requireTimestamp: false }],
    ['zero signature', BODY, { ...h, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` }, SECRET, at(3)],
    [
      'two signatures, the second right',
      BODY,
      { ...h, 'webhook-signature': `v0,x ${h['webhook-signature']}` },
      SECRET,
      at(3),
    ],
    [
      'signature with junk around its base64',
      BODY,
      { ...h, 'webhook-signature': `${h['webhook-signature']}!!` },
      SECRET,
      at(3),
    ],
    ['bearer only', BODY, { authorization: `Bearer ${SECRET}` }, SECRET, { ...at(3), requireTimestamp: false }],
    [
      'bearer one character short',
      BODY,
      { authorization: `Bearer ${SECRET.slice(0, -1)}` },
      SECRET,
      { ...at(3), requireTimestamp: false },
    ],
    [
      'bearer one character long',
      BODY,
      { authorization: `Bearer ${SECRET}x` },
      SECRET,
      { ...at(3), requireTimestamp: false },
    ],
    ['basic, not bearer', BODY, { authorization: `Basic ${SECRET}` }, SECRET, { ...at(3), requireTimestamp: false }],
    ['nothing', BODY, {}, SECRET, { ...at(3), requireTimestamp: false }],
    ['signed, not a payload', junk, sign(junk), SECRET, at(3)],
    ['signed, not JSON', Buffer.from('nope'), sign(Buffer.from('nope')), SECRET, at(3)],
    ['signed, starts with a byte-order mark', bom, sign(bom), SECRET, at(3)],
  ];
}

describe('the Web Crypto receiver answers as the Node one', () => {
  it.each(webhookVectors())('webhook: %s', async (_name, body, headers, secret, options) => {
    const expected = node.verifyWebhook(body, headers, secret, options);
    expect(await web.verifyWebhook(body, headers, secret, options)).toEqual(expected);
  });

  it('the vectors cover acceptance and every kind of refusal', () => {
    const results = webhookVectors().map(([, body, headers, secret, options]) =>
      node.verifyWebhook(body, headers, secret, options),
    );
    expect(
      results
        .filter((r) => r.ok)
        .map((r) => r.ok && r.verifiedBy)
        .sort(),
    ).toEqual(['bearer', ...Array(9).fill('signature')]);
    const reasons = results.flatMap((r) => (r.ok ? [] : [`${r.status} ${r.reason}`])).join('\n');
    for (const expected of [
      /401 webhook-signature does not match: the secret is right/,
      /401 webhook-signature does not match: the request was signed with another secret/,
      /401 webhook-signature does not match: either/,
      /401 signature does not match/,
      /outside the 300 s tolerance/,
      /in the future/,
      /could be a replay/,
      /not a number of seconds/,
      /bearer token does not match/,
      /no signature and no bearer token/,
      /400 body is not JSON/,
      /400 body is not a Quire webhook payload/,
    ]) {
      expect(reasons).toMatch(expected);
    }
  });

  const generations = new Map<string, number>();
  const keyring = createKeyring('a-server-secret-that-stays-the-same-0123456789', {
    generationOf: (n) => generations.get(n) ?? 1,
  });
  const key = keyring.previewKeyFor('one');
  const NOW = Date.parse('2026-11-26T10:00:00Z');
  const HOUR = 3_600_000;
  const token = createPreviewToken(key, { site: 'one', slug: 'draft-post' }, 24 * HOUR, NOW).token;
  const [payload, signature] = token.split('.') as [string, string];
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  // The same 6-bit group with another of the unused low bits set: decodes to the same bytes.
  const respell = (last: string) => alphabet[alphabet.indexOf(last) ^ 1]!;
  const signedClaims = (claims: object) => {
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${body}.${createHmac('sha256', key).update(`quire-preview-token\0${body}`).digest('base64url')}`;
  };
  const tokens: [string, string, number, string, string][] = [
    ['fresh', token, NOW + HOUR, 'draft-post', key],
    ['expired', token, NOW + 25 * HOUR, 'draft-post', key],
    ['another article', token, NOW, 'another-post', key],
    [
      'another site',
      createPreviewToken(key, { site: 'two', slug: 'draft-post' }, HOUR, NOW).token,
      NOW,
      'draft-post',
      key,
    ],
    [
      'another key',
      createPreviewToken(keyring.previewKeyFor('two'), { site: 'one', slug: 'draft-post' }, HOUR, NOW).token,
      NOW,
      'draft-post',
      key,
    ],
    [
      'edited payload',
      `${Buffer.from(Buffer.from(payload, 'base64url').toString().replace('draft-post', 'other-post')).toString('base64url')}.${signature}`,
      NOW,
      'other-post',
      key,
    ],
    [
      'garbage with a wrong signature',
      `${Buffer.from('{not json').toString('base64url')}.${'A'.repeat(43)}`,
      NOW,
      'draft-post',
      key,
    ],
    ['malformed', 'a.b.c', NOW, 'draft-post', key],
    ['another spelling of the signature', `${token.slice(0, -1)}${respell(token.at(-1)!)}`, NOW, 'draft-post', key],
    [
      'signed, exp beyond what a Date holds',
      signedClaims({ v: 1, site: 'one', slug: 'draft-post', exp: Number.MAX_SAFE_INTEGER }),
      NOW,
      'draft-post',
      key,
    ],
    [
      'signed, exp far in the past',
      signedClaims({ v: 1, site: 'one', slug: 'draft-post', exp: -1e13 }),
      NOW,
      'draft-post',
      key,
    ],
    ['too long', `${'A'.repeat(2000)}.${'A'.repeat(43)}`, NOW, 'draft-post', key],
    [
      'naming a branch',
      createPreviewToken(key, { site: 'one', slug: 'draft-post', ref: 'content/spring' }, HOUR, NOW).token,
      NOW,
      'draft-post',
      key,
    ],
    [
      'signed, a ref that is no branch name',
      signedClaims({ v: 2, site: 'one', slug: 'draft-post', ref: '-x', exp: NOW / 1000 + 60 }),
      NOW,
      'draft-post',
      key,
    ],
  ];

  it.each(tokens)('preview token: %s', async (_name, t, now, slug, previewKey) => {
    const expected = node.verifyPreviewToken(t, previewKey, { slug, site: 'one', now: () => now });
    expect(await web.verifyPreviewToken(t, previewKey, { slug, site: 'one', now: () => now })).toEqual(expected);
  });

  it('preview token: the vectors include an acceptance and each refusal', () => {
    const reasons = tokens.map(([, t, now, slug, k]) => {
      const r = node.verifyPreviewToken(t, k, { slug, site: 'one', now: () => now });
      return r.ok ? 'ok' : r.reason;
    });
    expect(new Set(reasons)).toEqual(
      new Set(['ok', 'expired', 'other-article', 'other-site', 'signature', 'malformed']),
    );
  });

  it("a key that is not this site's preview key is a TypeError in both", async () => {
    expect(() => node.verifyPreviewToken(token, keyring.keyFor('one'), { slug: 'draft-post', site: 'one' })).toThrow(
      /not a Quire preview key/,
    );
    await expect(
      web.verifyPreviewToken(token, keyring.keyFor('one'), { slug: 'draft-post', site: 'one' }),
    ).rejects.toThrow(/not a Quire preview key/);
    await expect(
      web.verifyPreviewToken(token, keyring.previewKeyFor('two'), { slug: 'draft-post', site: 'one' }),
    ).rejects.toThrow(/belongs to site "two"/);
  });
});

describe('the built quire/receiver/web', () => {
  it('imports nothing and runs where only Web APIs exist (no Buffer, process or require)', async () => {
    const out = await buildReceiver(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-receiver-')));
    try {
      const js = fs.readFileSync(path.join(out, 'web.js'), 'utf8');
      expect(js).not.toMatch(/^\s*import\s/m);
      expect(js).not.toMatch(/\brequire\(|node:|process\.|Buffer\b/);
      expect(fs.readFileSync(path.join(out, 'index.js'), 'utf8')).toMatch(/from "node:crypto"/);
      expect(fs.existsSync(path.join(out, 'types', 'receiver', 'verify-webhook-web.d.ts'))).toBe(true);

      // A bare V8 context given only a Worker's globals; the module's exports land on `kit`.
      const context = vm.createContext({ crypto: globalThis.crypto, TextEncoder, TextDecoder, Headers, kit: {} });
      const script = js.replace(/^export \{([^}]*)\};?\s*$/m, (_m, names: string) =>
        names
          .split(',')
          .map(
            (n) =>
              `kit.${n
                .trim()
                .split(/\s+as\s+/)
                .pop()} = ${n.trim().split(/\s+as\s+/)[0]};`,
          )
          .join('\n'),
      );
      vm.runInContext(script, context);
      const kit = context.kit as typeof web;
      const signed = sign(BODY, SECRET, Math.floor(Date.now() / 1000));
      expect(await kit.verifyWebhook(BODY.toString('utf8'), signed, SECRET)).toMatchObject({
        ok: true,
        verifiedBy: 'signature',
        payload: { article: { id: 'a' } },
      });
      expect(
        await kit.verifyWebhook(BODY.toString('utf8'), sign(BODY, OTHER, Math.floor(Date.now() / 1000)), SECRET),
      ).toMatchObject({ ok: false, status: 401 });
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
