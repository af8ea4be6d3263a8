// For site owners: check that a request really comes from Quire before trusting its body.
// Self-contained (node:crypto only) so it can be copied into a receiver as is.
//
// Verify the RAW body bytes: JSON.parse + JSON.stringify changes the bytes (spacing, escapes,
// key order) and the signature no longer matches. See README "Receiving webhooks".
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface QuireWebhookPayload {
  event: 'published' | 'updated' | (string & {});
  article: {
    id: string;
    title: string;
    slug: string;
    status: 'published' | 'draft';
    metaDescription: string;
    mdx: string;
    html: string;
    imageUrl: string;
    imageAlt: string;
  };
}

export type VerifyResult =
  | { ok: true; verifiedBy: 'signature' | 'bearer'; payload: QuireWebhookPayload }
  | { ok: false; status: 400 | 401; reason: string };

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? record[name.toLowerCase()] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** Constant time for equal lengths; a length difference is not secret (the format is public). */
function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Accepts the request when `X-Quire-Signature` is the HMAC-SHA256 of `rawBody` under `secret`;
 * without a signature header, when `Authorization: Bearer <secret>` matches. A signature that is
 * present but wrong is refused even with a good Bearer: the body was changed on the way.
 */
export function verifyWebhook(rawBody: Buffer | Uint8Array | string, headers: HeaderSource, secret: string): VerifyResult {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const signature = header(headers, 'x-quire-signature');
  let verifiedBy: 'signature' | 'bearer';
  if (signature !== undefined) {
    const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
    const expected = createHmac('sha256', secret).update(body).digest();
    if (!match || !safeEqual(Buffer.from(match[1]!.toLowerCase(), 'hex'), expected)) {
      return { ok: false, status: 401, reason: 'signature does not match the body (was the body re-serialized before verifying?)' };
    }
    verifiedBy = 'signature';
  } else {
    const auth = header(headers, 'authorization');
    const token = auth?.match(/^Bearer (.+)$/)?.[1];
    if (token === undefined || !safeEqual(Buffer.from(token), Buffer.from(secret))) {
      return { ok: false, status: 401, reason: auth ? 'bearer token does not match the secret' : 'no signature and no bearer token' };
    }
    verifiedBy = 'bearer';
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, status: 400, reason: 'body is not JSON' };
  }
  const p = payload as Partial<QuireWebhookPayload> | null;
  if (!p || typeof p.event !== 'string' || !p.article || typeof p.article.id !== 'string' || typeof p.article.slug !== 'string') {
    return { ok: false, status: 400, reason: 'body is not a Quire webhook payload ({event, article: {id, slug, …}})' };
  }
  return { ok: true, verifiedBy, payload: p as QuireWebhookPayload };
}
