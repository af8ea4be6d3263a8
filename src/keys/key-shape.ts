// What a site key and a preview key look like, and what their signature signs: shared by the
// Node keyring (api-keys.ts, node:crypto) and the edge's (src/edge/web-crypto-keyring.ts, Web
// Crypto), so both accept exactly the same keys. No Node imports.

const KEY_SHAPE = /^(pk|pv)_([a-z0-9][a-z0-9-]*)\.([A-Za-z0-9_-]{43})$/;
const MAX_KEY_LENGTH = 256;
/** Keys remembered; more sites than this only cost an HMAC per request. */
export const MAX_MEMO_ENTRIES = 1024;

export interface KeyGenerations {
  generationOf(siteId: string): number;
}

/** What a key opens: the public articles of a site, or with a preview key its drafts too. */
export type KeyScope = 'public' | 'preview';

export interface KeyGrant {
  siteId: string;
  scope: KeyScope;
}

/** What the Content API needs of a keyring: which site, if any, a key opens. */
export interface KeyVerifier {
  /**
   * The site and what the key may see, or null for a malformed, forged or outdated key, or one
   * for a site not in `knownSites`. A promise where the check is asynchronous (Web Crypto).
   */
  grant(unsafeKey: string, knownSites: { has(siteId: string): boolean }): KeyGrant | null | Promise<KeyGrant | null>;
}

/**
 * A site's preview key has a generation of its own, kept under `<site>.preview` (a dot is never
 * part of a site id), so rotating one of a site's keys leaves the other working.
 */
export const PREVIEW_SUFFIX = '.preview';

/** The name a site's preview key generation is kept under. */
export function previewKeyName(siteId: string): string {
  return `${siteId}${PREVIEW_SUFFIX}`;
}

export const LABELS = { pk: 'quire-api-key', pv: 'quire-preview-key' } as const;
export type KeyPrefix = keyof typeof LABELS;

/** The text a key's signature is the HMAC-SHA256 of (under the server secret), base64url. */
export const keyMessage = (prefix: KeyPrefix, siteId: string, generation: number): string =>
  `${LABELS[prefix]}\0${siteId}\0${generation}`;

/** The parts of a key of the right shape; null for anything else (nothing is computed for it). */
export function parseKey(unsafeKey: string): { prefix: KeyPrefix; siteId: string; scope: KeyScope } | null {
  if (unsafeKey.length > MAX_KEY_LENGTH) return null;
  const m = KEY_SHAPE.exec(unsafeKey);
  if (!m) return null;
  const prefix = m[1] as KeyPrefix;
  return { prefix, siteId: m[2]!, scope: prefix === 'pk' ? 'public' : 'preview' };
}
