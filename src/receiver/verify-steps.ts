// What the receiver kit decides, written once for both of its crypto back-ends: node:crypto
// (verify-webhook.ts, synchronous) and Web Crypto (verify-webhook-web.ts, for edge runtimes and
// Workers, asynchronous). Each check is a generator that yields the one thing it cannot do
// without a crypto library — "is this the HMAC of these bytes under this key?", "are these
// equal?", both in constant time — and gets the answer back; a back-end only answers those
// questions. So the two variants cannot drift apart: same reasons, same results.
//
// No imports and no Node built-ins here (no Buffer): this runs on every runtime.

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

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

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

export type PreviewTokenResult =
  /**
   * `ref`: the branch whose preview the link opens (`quire preview --ref`); fetch the article with
   * it (`Quire-Ref: <ref>` or `?ref=<ref>`). Absent: the link opens the article as the server serves it.
   */
  | { ok: true; site: string; slug: string; expiresAt: string; ref?: string }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'other-article' | 'other-site'; message: string };

export interface PreviewTokenExpectation {
  slug: string;
  site: string;
  now?: () => number;
}

/** A question for the crypto back-end; the answer is true or false. */
export type CryptoQuestion =
  /** Is `mac` the HMAC-SHA256 of `data` under `key`? Compared in constant time. */
  | { kind: 'hmac-is'; key: Uint8Array; data: Uint8Array; mac: Uint8Array }
  /** Are `a` and `b` the same bytes? Constant time for equal lengths. */
  | { kind: 'equal'; a: Uint8Array; b: Uint8Array };

export type Steps<Result> = Generator<CryptoQuestion, Result, boolean>;

const DEFAULT_TOLERANCE_SEC = 300;
const utf8 = new TextEncoder();
// Keeps a byte-order mark, so a body that starts with one is not JSON (as with Buffer#toString).
const fromUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value =
    record[name] ??
    record[name.toLowerCase()] ??
    Object.entries(record).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(value) ? value[0] : value;
}

export function bytesOf(body: Uint8Array | ArrayBuffer | string): Uint8Array {
  if (typeof body === 'string') return utf8.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

const BASE64_DIGITS = new Map(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'].map((c, i) => [c, i]),
);
for (const [c, i] of [
  ['+', 62],
  ['-', 62],
  ['/', 63],
  ['_', 63],
] as const)
  BASE64_DIGITS.set(c, i);

/**
 * Base64 or base64url to bytes, as Node's Buffer reads it (the signer uses Buffer): characters
 * outside both alphabets are skipped, the first `=` ends the data, leftover bits are dropped.
 */
export function decodeBase64(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let count = 0;
  for (const ch of text) {
    if (ch === '=') break;
    const digit = BASE64_DIGITS.get(ch);
    if (digit === undefined) continue;
    bits = (bits << 6) | digit;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push((bits >> count) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
}

/** The Standard Webhooks key: base64 after a `whsec_` prefix, else the secret's UTF-8 bytes. */
function standardWebhooksKey(secret: string): Uint8Array {
  return secret.startsWith('whsec_') ? decodeBase64(secret.slice(6)) : utf8.encode(secret);
}

function* bearerIsSecret(headers: HeaderSource, secret: string): Steps<boolean | undefined> {
  const token = header(headers, 'authorization')?.match(/^Bearer (.+)$/)?.[1];
  if (token === undefined) return undefined;
  return yield { kind: 'equal', a: utf8.encode(token), b: utf8.encode(secret) };
}

/**
 * Why a signature did not match, told apart by the Bearer token Quire sends beside it: the
 * same secret means the body was changed before verifying; another token means another secret.
 */
function* whyNoMatch(headers: HeaderSource, secret: string): Steps<string> {
  const same = yield* bearerIsSecret(headers, secret);
  if (same === undefined)
    return 'either the secret differs from the one registered in Quire, or the body was changed before verifying (verify the raw bytes, not re-serialized JSON)';
  if (same)
    return 'the secret is right, so the body was changed before verifying (re-serialized JSON? verify the raw bytes)';
  return "the request was signed with another secret than this receiver's; use the secret registered in Quire (`quire webhook set <site> --secret …`)";
}

/**
 * Accepts the request when it is signed and fresh: the Standard Webhooks signature (HMAC of
 * "id.timestamp.body") matches and `webhook-timestamp` is within `toleranceSec` of now, and a
 * present `X-Quire-Signature` (HMAC of the body) matches too. With `requireTimestamp: false`, a
 * request without the Standard Webhooks headers is accepted on `X-Quire-Signature`, or without
 * a signature header on `Authorization: Bearer <secret>`. A signature that is present but wrong
 * is refused even with a good Bearer: the body was changed on the way.
 */
export function* webhookSteps(
  body: Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions,
): Steps<VerifyResult> {
  const { toleranceSec = DEFAULT_TOLERANCE_SEC, now = Date.now, requireTimestamp = true } = options;
  const refuse = (reason: string): VerifyResult => ({ ok: false, status: 401, reason });
  const signature = header(headers, 'x-quire-signature');
  const standard = header(headers, 'webhook-signature');
  let verifiedBy: 'signature' | 'bearer' | null = null;
  if (standard !== undefined || requireTimestamp) {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    if (standard === undefined || id === undefined || timestamp === undefined) {
      return refuse(
        'no webhook-id, webhook-timestamp and webhook-signature headers: an undated request could be a replay',
      );
    }
    if (!/^\d{1,12}$/.test(timestamp.trim())) return refuse('webhook-timestamp is not a number of seconds');
    const ageSec = Math.floor(now() / 1000) - Number(timestamp.trim());
    if (Math.abs(ageSec) > toleranceSec) {
      return refuse(
        `webhook-timestamp is ${Math.abs(ageSec)} s ${ageSec > 0 ? 'old' : 'in the future'}, outside the ${toleranceSec} s tolerance (a replayed request, or a clock that is off)`,
      );
    }
    const key = standardWebhooksKey(secret);
    const signed = concat(utf8.encode(`${id}.${timestamp.trim()}.`), body);
    // Several space-separated signatures may be sent while a secret is being changed.
    let matches = false;
    for (const entry of standard.split(' ')) {
      const [version, mac] = entry.split(',', 2);
      if (
        version === 'v1' &&
        mac !== undefined &&
        (yield { kind: 'hmac-is', key, data: signed, mac: decodeBase64(mac) })
      ) {
        matches = true;
        break;
      }
    }
    if (!matches) return refuse(`webhook-signature does not match: ${yield* whyNoMatch(headers, secret)}`);
    verifiedBy = 'signature';
  }
  if (signature !== undefined) {
    const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
    if (!match || !(yield { kind: 'hmac-is', key: utf8.encode(secret), data: body, mac: decodeHex(match[1]!) })) {
      return refuse(`signature does not match: ${yield* whyNoMatch(headers, secret)}`);
    }
    verifiedBy = 'signature';
  } else if (verifiedBy === null) {
    const auth = header(headers, 'authorization');
    if (!(yield* bearerIsSecret(headers, secret))) {
      return refuse(auth ? 'bearer token does not match the secret' : 'no signature and no bearer token');
    }
    verifiedBy = 'bearer';
  }
  let payload: unknown;
  try {
    payload = JSON.parse(fromUtf8.decode(body));
  } catch {
    return { ok: false, status: 400, reason: 'body is not JSON' };
  }
  const p = payload as Partial<QuireWebhookPayload> | null;
  if (
    !p ||
    typeof p.event !== 'string' ||
    !p.article ||
    typeof p.article.id !== 'string' ||
    typeof p.article.slug !== 'string'
  ) {
    return { ok: false, status: 400, reason: 'body is not a Quire webhook payload ({event, article: {id, slug, …}})' };
  }
  return { ok: true, verifiedBy, payload: p as QuireWebhookPayload };
}

function decodeHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

const MAX_PREVIEW_TOKEN_LENGTH = 1024;
const PREVIEW_KEY = /^pv_([a-z0-9][a-z0-9-]*)\.[A-Za-z0-9_-]{43}$/;
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** 9999-12-31T23:59:59Z: the last second every runtime's Date prints in the usual four-digit form. */
const MAX_PREVIEW_EXP_SEC = 253_402_300_799;

/**
 * A branch name as Quire previews one (src/follow/follow-source.ts `branchProblem`, which a test
 * holds this to): letters, digits, `.`, `_`, `-` and `/`, at most 200, no `..` or `//`, no part
 * starting with `.`, not starting with `-` or `/`, not ending with `/`, `.` or `.lock`.
 */
export function isPreviewRef(ref: unknown): ref is string {
  return (
    typeof ref === 'string' &&
    ref.length <= 200 &&
    /^[A-Za-z0-9._/-]+$/.test(ref) &&
    !ref.startsWith('-') &&
    !ref.includes('..') &&
    !ref.includes('//') &&
    !/(^|\/)\./.test(ref) &&
    !/[/.]$/.test(ref) &&
    !ref.startsWith('/') &&
    !ref.endsWith('.lock')
  );
}

/**
 * Base64url as the signer writes it (RFC 4648 §5, no padding), else null: only the alphabet, no
 * length that leaves a lone character, and the unused low bits of the last character zero. So a
 * byte string has one spelling, and a receiver that remembers used tokens cannot be handed the
 * same one again spelled differently.
 */
export function decodeCanonicalBase64Url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let count = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = BASE64URL_ALPHABET.indexOf(text[i]!);
    if (digit < 0) return null;
    bits = ((bits << 6) | digit) & 0xfff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[at++] = (bits >> count) & 0xff;
    }
  }
  return (bits & ((1 << count) - 1)) === 0 ? out : null;
}

/**
 * For a site's preview route: accepts a token from a Quire preview link (`quire preview`, or the
 * admin's Preview link) when it was signed with this site's preview key, is for this article
 * (`slug`) and site, and has not expired. Only then fetch the draft with the preview key. The
 * signature is checked, in constant time, before anything in the token is read. A key that is
 * not this site's preview key is a programming error (TypeError), not a refusal.
 */
export function* previewTokenSteps(
  token: string,
  previewKey: string,
  expected: PreviewTokenExpectation,
): Steps<PreviewTokenResult> {
  const refuse = (
    reason: Exclude<PreviewTokenResult, { ok: true }>['reason'],
    message: string,
  ): PreviewTokenResult => ({ ok: false, reason, message });
  const keySite = PREVIEW_KEY.exec(previewKey)?.[1];
  if (keySite === undefined)
    throw new TypeError('previewKey is not a Quire preview key (pv_<site>.<signature>): see `quire keys`');
  if (keySite !== expected.site) throw new TypeError(`previewKey belongs to site "${keySite}", not "${expected.site}"`);
  if (
    typeof token !== 'string' ||
    token.length > MAX_PREVIEW_TOKEN_LENGTH ||
    !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)
  ) {
    return refuse('malformed', 'not a Quire preview token');
  }
  const [payload, signature] = token.split('.') as [string, string];
  const payloadBytes = decodeCanonicalBase64Url(payload);
  const mac = decodeCanonicalBase64Url(signature);
  if (payloadBytes === null || mac === null)
    return refuse('malformed', 'the token is not in canonical base64url (not as Quire writes it)');
  const signed = yield {
    kind: 'hmac-is',
    key: utf8.encode(previewKey),
    data: utf8.encode(`quire-preview-token\0${payload}`),
    mac,
  };
  if (!signed)
    return refuse(
      'signature',
      "the token was not signed with this site's preview key (forged, or the preview key was rotated)",
    );
  let claims: { v?: unknown; site?: unknown; slug?: unknown; ref?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(fromUtf8.decode(payloadBytes));
  } catch {
    return refuse('malformed', "the token's payload is not JSON");
  }
  if (typeof claims?.site !== 'string' || typeof claims.slug !== 'string') {
    return refuse('malformed', "the token's payload is not a preview claim");
  }
  // Version 1 opens the article as served and has no ref; version 2 names the branch it opens.
  if (claims.v === 1 ? 'ref' in claims : claims.v !== 2 || !isPreviewRef(claims.ref)) {
    return refuse('malformed', "the token's payload is not a version 1 or 2 preview claim");
  }
  // Bounded before it becomes a Date: out of range, Date would throw instead of refusing.
  if (!Number.isSafeInteger(claims.exp) || (claims.exp as number) < 0 || (claims.exp as number) > MAX_PREVIEW_EXP_SEC) {
    return refuse('malformed', "the token's exp is not a time in whole seconds between 1970 and 9999");
  }
  if (claims.site !== expected.site) return refuse('other-site', `the token is for site "${claims.site}"`);
  if (claims.slug !== expected.slug)
    return refuse('other-article', `the token is for the article "${claims.slug}", not "${expected.slug}"`);
  const exp = claims.exp as number;
  const nowMs = (expected.now ?? Date.now)();
  if (nowMs >= exp * 1000)
    return refuse('expired', `the preview link expired at ${new Date(exp * 1000).toISOString()}`);
  return {
    ok: true,
    site: claims.site,
    slug: claims.slug,
    expiresAt: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(claims.v === 2 ? { ref: claims.ref as string } : {}),
  };
}
