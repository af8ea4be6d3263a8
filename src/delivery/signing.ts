// The headers that let a receiver check a delivery: the spec's Bearer secret and X-Quire-Signature
// (HMAC-SHA256 of exactly the bytes sent), and the Standard Webhooks trio (webhook-id,
// webhook-timestamp, webhook-signature) for that ecosystem's verifiers and replay protection.
import { createHmac } from 'node:crypto';

export const USER_AGENT = 'Quire-Webhooks/1.0';

/** `sha256=<hex>` over the raw body. */
export function quireSignature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The Standard Webhooks signing key: a `whsec_` secret is base64 after its prefix (what Quire
 * generates, and what those libraries expect by default); any other secret is used as its UTF-8
 * bytes (their `format: 'raw'`).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function standardWebhooksSignature(id: string, timestampSec: number, body: Buffer, secret: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSec}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export function deliveryHeaders(opts: { body: Buffer; secret: string; event: string; deliveryId: string; timestampSec: number; attempt: number }): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    Authorization: `Bearer ${opts.secret}`,
    'X-Quire-Event': opts.event,
    'X-Quire-Signature': quireSignature(opts.body, opts.secret),
    'X-Quire-Delivery': opts.deliveryId,
    'X-Quire-Attempt': String(opts.attempt),
    'webhook-id': opts.deliveryId,
    'webhook-timestamp': String(opts.timestampSec),
    'webhook-signature': standardWebhooksSignature(opts.deliveryId, opts.timestampSec, opts.body, opts.secret),
  };
}
