import { createHmac } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../src/delivery/signing.ts';
import { createExampleReceiver } from '../../src/receiver/example-receiver.ts';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
// Spacing and escapes as a serializer other than JSON.stringify might write them.
const BODY = Buffer.from(
  '{"event":"updated","article":{"id":"a","slug":"a","title":"Caf\\u00e9 \\"x\\"","status":"published","metaDescription":"","mdx":"# A","html":"<h1>A</h1>","imageUrl":"","imageAlt":""}}',
);
const SENT_AT_SEC = 1_700_000_000;
const signed = (body: Buffer, secret = SECRET, timestampSec = SENT_AT_SEC) =>
  deliveryHeaders({ body, secret, event: 'updated', deliveryId: 'dlv_1', timestampSec, attempt: 1 });
/** The receiver's clock a few seconds after SENT_AT_SEC. */
const at = { now: () => (SENT_AT_SEC + 3) * 1000 };
const relaxed = { ...at, requireTimestamp: false };

describe('verifyWebhook', () => {
  it('accepts a signed delivery and parses it', () => {
    const r = verifyWebhook(BODY, signed(BODY), SECRET, at);
    expect(r).toMatchObject({
      ok: true,
      verifiedBy: 'signature',
      payload: { event: 'updated', article: { id: 'a', title: 'Café "x"' } },
    });
  });

  it('reads headers from a Fetch Headers object and from Node header records in any case', () => {
    const h = signed(BODY);
    expect(verifyWebhook(BODY, new Headers(h), SECRET, at).ok).toBe(true);
    const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook(new Uint8Array(BODY), lower, SECRET, at).ok).toBe(true);
  });

  it('refuses re-serialized JSON: the HMAC is over the exact bytes', () => {
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString())));
    expect(reserialized.equals(BODY)).toBe(false);
    const r = verifyWebhook(reserialized, signed(BODY), SECRET, at);
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(r.ok ? '' : r.reason).toMatch(/re-serialized/);
  });

  it('tells a wrong secret from a changed body in its reason', () => {
    const wrongSecret = verifyWebhook(BODY, signed(BODY, `${SECRET}x`), SECRET, at);
    expect(wrongSecret).toMatchObject({
      ok: false,
      status: 401,
      reason: expect.stringMatching(/signed with another secret/),
    });
    expect(wrongSecret.ok ? '' : wrongSecret.reason).not.toMatch(/re-serialized|changed before/);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString())));
    expect(verifyWebhook(reserialized, signed(BODY), SECRET, at)).toMatchObject({
      reason: expect.stringMatching(/the secret is right, so the body was changed/),
    });
    const { Authorization: _, ...noBearer } = signed(BODY, `${SECRET}x`) as Record<string, string>;
    expect(verifyWebhook(BODY, noBearer, SECRET, at)).toMatchObject({
      reason: expect.stringMatching(/either the secret differs .* or the body was changed/),
    });
  });

  it('refuses a wrong secret, a truncated or malformed signature, and a tampered body even with a good bearer', () => {
    expect(verifyWebhook(BODY, signed(BODY, `${SECRET}x`), SECRET, at).ok).toBe(false);
    const h = signed(BODY);
    expect(
      verifyWebhook(BODY, { ...h, 'X-Quire-Signature': h['X-Quire-Signature']!.slice(0, -2) }, SECRET, at).ok,
    ).toBe(false);
    expect(verifyWebhook(BODY, { ...h, 'X-Quire-Signature': 'md5=abc' }, SECRET, at).ok).toBe(false);
    const tampered = Buffer.from(BODY.toString().replace('<h1>A</h1>', '<h1>B</h1>'));
    expect(verifyWebhook(tampered, h, SECRET, at)).toMatchObject({ ok: false, status: 401 });
  });

  it('accepts the bearer token alone, compared in full', () => {
    expect(verifyWebhook(BODY, { authorization: `Bearer ${SECRET}` }, SECRET, relaxed)).toMatchObject({
      ok: true,
      verifiedBy: 'bearer',
    });
    expect(verifyWebhook(BODY, { authorization: `Bearer ${SECRET.slice(0, -1)}` }, SECRET, relaxed).ok).toBe(false);
    expect(verifyWebhook(BODY, { authorization: `Bearer ${SECRET}x` }, SECRET, relaxed).ok).toBe(false);
    expect(verifyWebhook(BODY, { authorization: `Basic ${SECRET}` }, SECRET, relaxed).ok).toBe(false);
    expect(verifyWebhook(BODY, {}, SECRET, relaxed)).toMatchObject({
      ok: false,
      status: 401,
      reason: 'no signature and no bearer token',
    });
  });

  it('answers 400 for a verified body that is not a webhook payload', () => {
    const junk = Buffer.from('{"hello":1}');
    expect(verifyWebhook(junk, signed(junk), SECRET, at)).toMatchObject({ ok: false, status: 400 });
    const notJson = Buffer.from('nope');
    expect(verifyWebhook(notJson, signed(notJson), SECRET, at)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses a replayed signature: webhook-timestamp outside the tolerance, or no timestamp at all', () => {
    const h = signed(BODY);
    const later = (sec: number) => ({ now: () => (SENT_AT_SEC + sec) * 1000 });
    expect(verifyWebhook(BODY, h, SECRET, later(300)).ok).toBe(true);
    expect(verifyWebhook(BODY, h, SECRET, later(301))).toMatchObject({
      ok: false,
      status: 401,
      reason: expect.stringMatching(/301 s old, outside the 300 s tolerance/),
    });
    expect(verifyWebhook(BODY, h, SECRET, later(-301))).toMatchObject({
      ok: false,
      status: 401,
      reason: expect.stringMatching(/in the future/),
    });
    expect(verifyWebhook(BODY, h, SECRET, { ...later(3600), toleranceSec: 7200 }).ok).toBe(true);
    // A re-dated replay does not verify: the timestamp is signed.
    expect(verifyWebhook(BODY, { ...h, 'webhook-timestamp': String(SENT_AT_SEC + 600) }, SECRET, later(600)).ok).toBe(
      false,
    );
    // Stripped to the body-only signature, which dates nothing: refused unless asked for.
    const { 'webhook-signature': _s, 'webhook-timestamp': _t, 'webhook-id': _i, ...bodyOnly } = h;
    expect(verifyWebhook(BODY, bodyOnly, SECRET, later(3600))).toMatchObject({
      ok: false,
      status: 401,
      reason: expect.stringMatching(/could be a replay/),
    });
    expect(verifyWebhook(BODY, bodyOnly, SECRET, { ...later(3600), requireTimestamp: false }).ok).toBe(true);
    // A wrong or missing Standard Webhooks signature is refused even with a good X-Quire-Signature.
    expect(
      verifyWebhook(BODY, { ...h, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` }, SECRET, at).ok,
    ).toBe(false);
    expect(verifyWebhook(BODY, { ...h, 'webhook-signature': `v0,x ${h['webhook-signature']}` }, SECRET, at).ok).toBe(
      true,
    );
  });

  it('the Standard Webhooks signature matches the scheme: base64 HMAC of "id.timestamp.body" under the whsec_ key', () => {
    const h = signed(BODY);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`dlv_1.1700000000.${BODY.toString()}`).digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
    const raw = 'a-plain-secret-of-enough-length';
    const rawSigned = deliveryHeaders({
      body: BODY,
      secret: raw,
      event: 'updated',
      deliveryId: 'dlv_1',
      timestampSec: 1,
      attempt: 1,
    });
    expect(rawSigned['webhook-signature']).toBe(
      `v1,${createHmac('sha256', raw).update(`dlv_1.1.${BODY.toString()}`).digest('base64')}`,
    );
  });
});

describe('the example receiver', () => {
  it('over a real socket: verifies, upserts by article.id without duplicates, and replies {url, id}', async () => {
    const { app, articles } = createExampleReceiver({ secret: SECRET, publicBaseUrl: 'https://site.example' });
    const { serve } = await import('@hono/node-server');
    const server = await new Promise<http.Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as http.Server));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/quire`;
      const post = (body: Buffer, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });
      const nowSec = () => Math.floor(Date.now() / 1000);
      const first = await post(BODY, signed(BODY, SECRET, nowSec()));
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ url: 'https://site.example/blog/a', id: 'a' });
      const edited = Buffer.from(BODY.toString().replace('<h1>A</h1>', '<h1>A2</h1>'));
      expect((await post(edited, signed(edited, SECRET, nowSec()))).status).toBe(200);
      expect(articles.size).toBe(1);
      expect(articles.get('a')!.html).toBe('<h1>A2</h1>');
      expect((await post(BODY, signed(BODY, `whsec_${Buffer.alloc(32, 1).toString('base64')}`, nowSec()))).status).toBe(
        401,
      );
      expect(articles.get('a')!.html).toBe('<h1>A2</h1>');
      // A recorded delivery replayed ten minutes later is refused, whatever it carries.
      const replay = await post(BODY, signed(BODY, SECRET, nowSec() - 600));
      expect(replay.status).toBe(401);
      expect(((await replay.json()) as { error: string }).error).toMatch(/60[01] s old, outside the 300 s tolerance/); // the receiver's clock may have ticked on
      expect(articles.get('a')!.html).toBe('<h1>A2</h1>');
    } finally {
      server.close();
    }
  });
});
