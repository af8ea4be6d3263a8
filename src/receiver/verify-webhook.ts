// For site owners: check that a request really comes from Quire before trusting its body.
// Self-contained (node:crypto only) so it can be copied into a receiver as is.
//
// Verify the RAW body bytes: JSON.parse + JSON.stringify changes the bytes (spacing, escapes,
// key order) and the signature no longer matches. See README "Receiving webhooks".
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The article of a `published` or `updated` event: every field a string, "" when absent. */
export interface QuireWebhookArticle {
  id: string;
  title: string;
  slug: string;
  status: 'published' | 'draft';
  metaDescription: string;
  mdx: string;
  html: string;
  imageUrl: string;
  imageAlt: string;
}

/** The article of an `unpublished` or `deleted` event: which one to remove. */
export interface QuireWebhookArticleRef {
  id: string;
  slug: string;
}

/**
 * What Quire sends: `published` and `updated` with the full article (upsert it by `id`);
 * `unpublished` and `deleted`, only to a webhook registered with extra events, with the
 * article's id and slug (remove it). One member per event, so any test of `event` narrows.
 */
export type QuireWebhookPayload =
  | { event: 'published'; article: QuireWebhookArticle }
  | { event: 'updated'; article: QuireWebhookArticle }
  | { event: 'unpublished'; article: QuireWebhookArticleRef }
  | { event: 'deleted'; article: QuireWebhookArticleRef };

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

/** The Standard Webhooks key: base64 after a `whsec_` prefix, else the secret's UTF-8 bytes. */
function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/** Constant time for equal lengths; a length difference is not secret (the format is public). */
function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface VerifyOptions {
  /**
   * How far `webhook-timestamp` may be from now, in seconds (default 300, as Standard Webhooks
   * libraries use). An older request is a replay of a recorded one and is refused.
   */
  toleranceSec?: number;
  /** The clock, in ms (default Date.now). */
  now?: () => number;
  /**
   * Default true: a request without the Standard Webhooks headers (webhook-id, -timestamp,
   * -signature) is refused, because nothing in it dates it and a recorded one could be replayed
   * for ever. Quire always sends them. false accepts X-Quire-Signature or the Bearer token alone.
   */
  requireTimestamp?: boolean;
}

const DEFAULT_TOLERANCE_SEC = 300;

/**
 * Why a signature did not match, told apart by the Bearer token Quire sends beside it: the
 * same secret means the body was changed before verifying; another token means another secret.
 */
function whyNoMatch(headers: HeaderSource, secret: string): string {
  const token = header(headers, 'authorization')?.match(/^Bearer (.+)$/)?.[1];
  if (token === undefined) return 'either the secret differs from the one registered in Quire, or the body was changed before verifying (verify the raw bytes, not re-serialized JSON)';
  if (safeEqual(Buffer.from(token), Buffer.from(secret))) return 'the secret is right, so the body was changed before verifying (re-serialized JSON? verify the raw bytes)';
  return 'the request was signed with another secret than this receiver\'s; use the secret registered in Quire (`quire webhook set <site> --secret …`)';
}

/**
 * Accepts the request when it is signed and fresh: the Standard Webhooks signature (HMAC of
 * "id.timestamp.body") matches and `webhook-timestamp` is within `toleranceSec` of now, and a
 * present `X-Quire-Signature` (HMAC of the body) matches too. With `requireTimestamp: false`, a
 * request without the Standard Webhooks headers is accepted on `X-Quire-Signature`, or without
 * a signature header on `Authorization: Bearer <secret>`. A signature that is present but wrong
 * is refused even with a good Bearer: the body was changed on the way.
 */
export function verifyWebhook(rawBody: Buffer | Uint8Array | string, headers: HeaderSource, secret: string, options: VerifyOptions = {}): VerifyResult {
  const { toleranceSec = DEFAULT_TOLERANCE_SEC, now = Date.now, requireTimestamp = true } = options;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const refuse = (reason: string): VerifyResult => ({ ok: false, status: 401, reason });
  const signature = header(headers, 'x-quire-signature');
  const standard = header(headers, 'webhook-signature');
  let verifiedBy: 'signature' | 'bearer' | null = null;
  if (standard !== undefined || requireTimestamp) {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    if (standard === undefined || id === undefined || timestamp === undefined) {
      return refuse('no webhook-id, webhook-timestamp and webhook-signature headers: an undated request could be a replay');
    }
    if (!/^\d{1,12}$/.test(timestamp.trim())) return refuse('webhook-timestamp is not a number of seconds');
    const ageSec = Math.floor(now() / 1000) - Number(timestamp.trim());
    if (Math.abs(ageSec) > toleranceSec) {
      return refuse(`webhook-timestamp is ${Math.abs(ageSec)} s ${ageSec > 0 ? 'old' : 'in the future'}, outside the ${toleranceSec} s tolerance (a replayed request, or a clock that is off)`);
    }
    const expected = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp.trim()}.`).update(body).digest();
    // Several space-separated signatures may be sent while a secret is being changed.
    const matches = standard.split(' ').some((entry) => {
      const [version, mac] = entry.split(',', 2);
      return version === 'v1' && mac !== undefined && safeEqual(Buffer.from(mac, 'base64'), expected);
    });
    if (!matches) return refuse(`webhook-signature does not match: ${whyNoMatch(headers, secret)}`);
    verifiedBy = 'signature';
  }
  if (signature !== undefined) {
    const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
    const expected = createHmac('sha256', secret).update(body).digest();
    if (!match || !safeEqual(Buffer.from(match[1]!.toLowerCase(), 'hex'), expected)) {
      return refuse(`signature does not match: ${whyNoMatch(headers, secret)}`);
    }
    verifiedBy = 'signature';
  } else if (verifiedBy === null) {
    const auth = header(headers, 'authorization');
    const token = auth?.match(/^Bearer (.+)$/)?.[1];
    if (token === undefined || !safeEqual(Buffer.from(token), Buffer.from(secret))) {
      return refuse(auth ? 'bearer token does not match the secret' : 'no signature and no bearer token');
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
