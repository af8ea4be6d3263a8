// The signatures against an HMAC computed here from the secret's own bytes, for secrets of every
// shape (the signer keeps each secret's key made once, so a stale or mixed-up key would show).
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, quireSignature, standardWebhooksSignature } from '../../src/delivery/signing.ts';

const hmac = (key: Buffer, ...parts: (string | Buffer)[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h;
};

describe('delivery signatures', () => {
  const body = Buffer.from('{"event":"published","article":{"slug":"a","html":"<p>é</p>"}}');
  const secrets = [
    'plain-secret',
    '',
    'ünïcödé 🔑 secret',
    `whsec_${randomBytes(24).toString('base64')}`,
    'whsec_', // an empty key after the prefix
    'whsec_not base64 at all!',
  ];

  it.each(secrets)('signs with the secret %j as the spec and Standard Webhooks say', (secret) => {
    const id = 'dlv_123';
    const ts = 1_764_000_000;
    const sw = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
    for (let round = 0; round < 2; round++) {
      expect(quireSignature(body, secret)).toBe(`sha256=${hmac(Buffer.from(secret, 'utf8'), body).digest('hex')}`);
      expect(standardWebhooksSignature(id, ts, body, secret)).toBe(
        `v1,${hmac(sw, `${id}.${ts}.`, body).digest('base64')}`,
      );
    }
  });

  it('keeps each secret apart, across more secrets than it keeps keys for', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `secret-${i}-${randomBytes(4).toString('hex')}`);
    for (const secret of [...many, ...many.slice(0, 50).reverse()]) {
      const headers = deliveryHeaders({
        body,
        secret,
        event: 'published',
        deliveryId: 'dlv_1',
        timestampSec: 1,
        attempt: 1,
      });
      expect(headers['X-Quire-Signature']).toBe(`sha256=${hmac(Buffer.from(secret), body).digest('hex')}`);
      expect(headers.Authorization).toBe(`Bearer ${secret}`);
    }
  });
});
