// Site keys: `pk_<site_id>.<signature>`, the signature an HMAC-SHA256 of the site id and the
// site's key generation under the server secret. Rotating a site bumps its generation, which
// changes that site's key only.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../cache/bounded-map.ts';
import { SITE_ID } from '../content/model.ts';

const KEY_SHAPE = /^pk_([a-z0-9][a-z0-9-]*)\.([A-Za-z0-9_-]{43})$/;
const MAX_KEY_LENGTH = 256;
/** Keys remembered; more sites than this only cost an HMAC per request. */
const MAX_MEMO_ENTRIES = 1024;

export interface KeyGenerations {
  generationOf(siteId: string): number;
}

export interface Keyring {
  keyFor(siteId: string): string;
  /**
   * The site the key belongs to, or null for a malformed, forged or outdated key, or one for a
   * site not in `knownSites`. The site is checked before anything is computed or remembered, so
   * keys for made-up sites cost no memory.
   */
  verify(unsafeKey: string, knownSites: { has(siteId: string): boolean }): string | null;
}

export function createKeyring(secret: string, generations: KeyGenerations): Keyring {
  const memo = new BoundedMap<string, string>(MAX_MEMO_ENTRIES);
  function keyFor(siteId: string): string {
    if (!SITE_ID.test(siteId)) throw new Error(`not a site id: ${siteId}`);
    const generation = generations.generationOf(siteId);
    const memoKey = `${siteId}:${generation}`;
    let key = memo.get(memoKey);
    if (!key) {
      const sig = createHmac('sha256', secret).update(`quire-api-key\0${siteId}\0${generation}`).digest('base64url');
      key = `pk_${siteId}.${sig}`;
      memo.set(memoKey, key);
    }
    return key;
  }
  return {
    keyFor,
    verify(unsafeKey, knownSites) {
      if (unsafeKey.length > MAX_KEY_LENGTH) return null;
      const m = KEY_SHAPE.exec(unsafeKey);
      if (!m || !knownSites.has(m[1]!)) return null;
      const expected = Buffer.from(keyFor(m[1]!));
      const given = Buffer.from(unsafeKey);
      return given.length === expected.length && timingSafeEqual(given, expected) ? m[1]! : null;
    },
  };
}
