// For site owners: check that a request really comes from Quire before trusting its body, and
// that a draft preview link was made by Quire (verifyPreviewToken, at the end).
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

export type PreviewTokenResult =
  | { ok: true; site: string; slug: string; expiresAt: string }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'other-article' | 'other-site'; message: string };

const MAX_PREVIEW_TOKEN_LENGTH = 1024;
const PREVIEW_KEY = /^pv_([a-z0-9][a-z0-9-]*)\.[A-Za-z0-9_-]{43}$/;

/**
 * For a site's preview route: accepts a token from a Quire preview link (`quire preview`, or the
 * admin's Preview link) when it was signed with this site's preview key, is for this article
 * (`slug`) and site, and has not expired. Only then fetch the draft with the preview key. The
 * signature is checked, in constant time, before anything in the token is read.
 */
export function verifyPreviewToken(token: string, previewKey: string, expected: { slug: string; site: string; now?: () => number }): PreviewTokenResult {
  const refuse = (reason: Exclude<PreviewTokenResult, { ok: true }>['reason'], message: string): PreviewTokenResult => ({ ok: false, reason, message });
  const keySite = PREVIEW_KEY.exec(previewKey)?.[1];
  if (keySite === undefined) throw new TypeError('previewKey is not a Quire preview key (pv_<site>.<signature>): see `quire keys`');
  if (keySite !== expected.site) throw new TypeError(`previewKey belongs to site "${keySite}", not "${expected.site}"`);
  if (typeof token !== 'string' || token.length > MAX_PREVIEW_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)) {
    return refuse('malformed', 'not a Quire preview token');
  }
  const [payload, signature] = token.split('.') as [string, string];
  const mac = createHmac('sha256', previewKey).update(`quire-preview-token\0${payload}`).digest();
  if (!safeEqual(Buffer.from(signature, 'base64url'), mac)) return refuse('signature', 'the token was not signed with this site\'s preview key (forged, or the preview key was rotated)');
  let claims: { v?: unknown; site?: unknown; slug?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return refuse('malformed', 'the token\'s payload is not JSON');
  }
  if (claims?.v !== 1 || typeof claims.site !== 'string' || typeof claims.slug !== 'string' || !Number.isSafeInteger(claims.exp)) {
    return refuse('malformed', 'the token\'s payload is not a version 1 preview claim');
  }
  if (claims.site !== expected.site) return refuse('other-site', `the token is for site "${claims.site}"`);
  if (claims.slug !== expected.slug) return refuse('other-article', `the token is for the article "${claims.slug}", not "${expected.slug}"`);
  const exp = claims.exp as number;
  const nowMs = (expected.now ?? Date.now)();
  if (nowMs >= exp * 1000) return refuse('expired', `the preview link expired at ${new Date(exp * 1000).toISOString()}`);
  return { ok: true, site: claims.site, slug: claims.slug, expiresAt: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}
