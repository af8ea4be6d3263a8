// Site keys: `pk_<site_id>.<signature>`, the signature an HMAC-SHA256 of the site id and the
// site's key generation under the server secret. Rotating a site bumps its generation, which
// changes that site's key only. Preview keys, `pv_<site_id>.<signature>`, are made the same way
// under another label and a generation of their own: they see drafts and scheduled articles, so
// they are never derivable from, or rotated with, the public key.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../cache/bounded-map.ts';
import { SITE_ID } from '../content/model.ts';

const KEY_SHAPE = /^(pk|pv)_([a-z0-9][a-z0-9-]*)\.([A-Za-z0-9_-]{43})$/;
const MAX_KEY_LENGTH = 256;
/** Keys remembered; more sites than this only cost an HMAC per request. */
const MAX_MEMO_ENTRIES = 1024;

export interface KeyGenerations {
  generationOf(siteId: string): number;
}

/** What a key opens: the public articles of a site, or with a preview key its drafts too. */
export type KeyScope = 'public' | 'preview';

export interface KeyGrant {
  siteId: string;
  scope: KeyScope;
}

export interface Keyring {
  keyFor(siteId: string): string;
  previewKeyFor(siteId: string): string;
  /**
   * The site a public key belongs to, or null for a malformed, forged or outdated key, a preview
   * key, or one for a site not in `knownSites`. The site is checked before anything is computed
   * or remembered, so keys for made-up sites cost no memory.
   */
  verify(unsafeKey: string, knownSites: { has(siteId: string): boolean }): string | null;
  /** Like verify, for either kind of key: the site and what the key may see. */
  grant(unsafeKey: string, knownSites: { has(siteId: string): boolean }): KeyGrant | null;
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

const LABELS = { pk: 'quire-api-key', pv: 'quire-preview-key' } as const;

export function createKeyring(secret: string, generations: KeyGenerations): Keyring {
  const memo = new BoundedMap<string, string>(MAX_MEMO_ENTRIES);
  function make(prefix: keyof typeof LABELS, siteId: string): string {
    if (!SITE_ID.test(siteId)) throw new Error(`not a site id: ${siteId}`);
    const generation = generations.generationOf(prefix === 'pk' ? siteId : previewKeyName(siteId));
    const memoKey = `${prefix}:${siteId}:${generation}`;
    let key = memo.get(memoKey);
    if (!key) {
      const sig = createHmac('sha256', secret).update(`${LABELS[prefix]}\0${siteId}\0${generation}`).digest('base64url');
      key = `${prefix}_${siteId}.${sig}`;
      memo.set(memoKey, key);
    }
    return key;
  }
  function grant(unsafeKey: string, knownSites: { has(siteId: string): boolean }): KeyGrant | null {
    if (unsafeKey.length > MAX_KEY_LENGTH) return null;
    const m = KEY_SHAPE.exec(unsafeKey);
    if (!m || !knownSites.has(m[2]!)) return null;
    const prefix = m[1] as keyof typeof LABELS;
    const expected = Buffer.from(make(prefix, m[2]!));
    const given = Buffer.from(unsafeKey);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { siteId: m[2]!, scope: prefix === 'pk' ? 'public' : 'preview' };
  }
  return {
    keyFor: (siteId) => make('pk', siteId),
    previewKeyFor: (siteId) => make('pv', siteId),
    verify(unsafeKey, knownSites) {
      const granted = grant(unsafeKey, knownSites);
      return granted?.scope === 'public' ? granted.siteId : null;
    },
    grant,
  };
}
