// The headers that let a receiver check a delivery: the spec's Bearer secret and X-Quire-Signature
// (HMAC-SHA256 of exactly the bytes sent), and the Standard Webhooks trio (webhook-id,
// webhook-timestamp, webhook-signature) for that ecosystem's verifiers and replay protection.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export const USER_AGENT = 'Quire-Webhooks/1.0';

/** `sha256=<hex>` over the raw body. */
export function quireSignature(body: Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', keysOf(secret).quire).update(body).digest('hex')}`;
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
  const mac = createHmac('sha256', keysOf(secret).standardWebhooks)
    .update(`${id}.${timestampSec}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

export function deliveryHeaders(opts: {
  body: Buffer;
  secret: string;
  event: string;
  deliveryId: string;
  timestampSec: number;
  attempt: number;
}): Record<string, string> {
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

type SigningKeys = { quire: KeyObject; standardWebhooks: KeyObject };

/**
 * Each secret's HMAC keys, made once: an HMAC keyed with a Buffer re-imports it on every call, which
 * cost more than the signature itself (docs/benchmarks-log.md, "a claim plan that stale statistics
 * broke"); a KeyObject is taken as it is. Bounded: a sender signs for a few thousand sites at most,
 * and the map starts afresh beyond that.
 */
const keys = new Map<string, SigningKeys>();
const MAX_KEYS = 4096;

function keysOf(secret: string): SigningKeys {
  let k = keys.get(secret);
  if (!k) {
    if (keys.size >= MAX_KEYS) keys.clear();
    k = {
      quire: createSecretKey(Buffer.from(secret, 'utf8')),
      standardWebhooks: createSecretKey(standardWebhooksKey(secret)),
    };
    keys.set(secret, k);
  }
  return k;
}
