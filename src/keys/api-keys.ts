// Site keys: `pk_<site_id>.<signature>`, the signature an HMAC-SHA256 of the site id and the
// site's key generation under the server secret. Rotating a site bumps its generation, which
// changes that site's key only. Preview keys, `pv_<site_id>.<signature>`, are made the same way
// under another label and a generation of their own: they see drafts and scheduled articles, so
// they are never derivable from, or rotated with, the public key.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../cache/bounded-map.ts';
import { SITE_ID } from '../content/model.ts';
import {
  keyMessage,
  type LABELS,
  MAX_MEMO_ENTRIES,
  parseKey,
  type KeyGenerations,
  type KeyGrant,
  type KeyVerifier,
} from './key-shape.ts';

export { PREVIEW_SUFFIX, previewKeyName } from './key-shape.ts';
export type { KeyGenerations, KeyGrant, KeyScope, KeyVerifier } from './key-shape.ts';
import { previewKeyName } from './key-shape.ts';

export interface Keyring extends KeyVerifier {
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

export function createKeyring(secret: string, generations: KeyGenerations): Keyring {
  const memo = new BoundedMap<string, string>(MAX_MEMO_ENTRIES);
  function make(prefix: keyof typeof LABELS, siteId: string): string {
    if (!SITE_ID.test(siteId)) throw new Error(`not a site id: ${siteId}`);
    const generation = generations.generationOf(prefix === 'pk' ? siteId : previewKeyName(siteId));
    const memoKey = `${prefix}:${siteId}:${generation}`;
    let key = memo.get(memoKey);
    if (!key) {
      const sig = createHmac('sha256', secret)
        .update(keyMessage(prefix, siteId, generation))
        .digest('base64url');
      key = `${prefix}_${siteId}.${sig}`;
      memo.set(memoKey, key);
    }
    return key;
  }
  function grant(unsafeKey: string, knownSites: { has(siteId: string): boolean }): KeyGrant | null {
    const parsed = parseKey(unsafeKey);
    if (!parsed || !knownSites.has(parsed.siteId)) return null;
    const expected = Buffer.from(make(parsed.prefix, parsed.siteId));
    const given = Buffer.from(unsafeKey);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { siteId: parsed.siteId, scope: parsed.scope };
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
