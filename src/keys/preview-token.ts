// Preview links: a token that opens one draft of one site until it expires. It is signed with the
// site's preview key, which the site already keeps server-side to fetch drafts, so the site's
// preview route can check it with the receiver kit's verifyPreviewToken and nothing else.
//
// Format (the receiver kit reads it with its own code, kept self-contained; a test holds the two
// to each other): `<payload>.<signature>`, both base64url, the payload the JSON
// {"v":1,"site","slug","exp"} (exp in whole seconds since the epoch), the signature an
// HMAC-SHA256 of "quire-preview-token\0<payload>" keyed by the preview key. A link to a branch's
// preview (`quire preview --ref`) is {"v":2,"site","slug","ref","exp"}: another version, so a kit
// that knows only version 1 refuses it rather than open the published article instead.
import { createHmac } from 'node:crypto';
import { parseDuration } from '../text/duration.ts';

export const PREVIEW_TOKEN_LABEL = 'quire-preview-token';
/** How long a preview link works when not told (`quire preview --ttl`; the web app's links). */
export const DEFAULT_PREVIEW_TTL = '24h';
export const DEFAULT_PREVIEW_TTL_MS = parseDuration(DEFAULT_PREVIEW_TTL)!;
/** A link handed out for longer than this is more of a leak than a preview. */
export const MAX_PREVIEW_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface PreviewToken {
  token: string;
  /** UTC, second precision. */
  expiresAt: string;
}

export function createPreviewToken(
  previewKey: string,
  target: { site: string; slug: string; ref?: string | null },
  ttlMs: number,
  now: number,
): PreviewToken {
  if (!(ttlMs > 0 && ttlMs <= MAX_PREVIEW_TTL_MS))
    throw new RangeError(`a preview link lasts more than 0 and at most ${MAX_PREVIEW_TTL_MS / 86_400_000} days`);
  const exp = Math.floor((now + ttlMs) / 1000);
  const { site, slug, ref } = target;
  const claims = ref == null ? { v: 1, site, slug, exp } : { v: 2, site, slug, ref, exp };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', previewKey).update(`${PREVIEW_TOKEN_LABEL}\0${payload}`).digest('base64url');
  return { token: `${payload}.${signature}`, expiresAt: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** The site's previewUrl template with the article and token filled in (each URL-encoded). */
export function previewLink(template: string, slug: string, token: string): string {
  return template.replaceAll('{slug}', encodeURIComponent(slug)).replaceAll('{token}', encodeURIComponent(token));
}
