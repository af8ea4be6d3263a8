// Site keys checked at the edge with Web Crypto: the same keys as the Node keyring
// (src/keys/api-keys.ts, the shape and signed text from key-shape.ts), HMAC-SHA256 under the
// server secret (the Worker's QUIRE_SECRET secret binding) and the key generations the deployed
// pointer carries. Expected keys are remembered per site and generation, so a warm isolate
// answers without a promise; comparison is constant-time after a length check.
//
// Preview keys are refused here: drafts are never exported, so the edge has nothing a preview
// key may see that a site key may not (docs/SCALING.md, docs/edge.md).
import { BoundedMap } from '../cache/bounded-map.ts';
import { base64url } from '../export/content-hash.ts';
import {
  keyMessage,
  MAX_MEMO_ENTRIES,
  parseKey,
  type KeyGenerations,
  type KeyGrant,
  type KeyVerifier,
} from '../keys/key-shape.ts';

const encoder = new TextEncoder();

/** Equal bytes, in time that depends only on the length (workerd's timingSafeEqual where there is one). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  const subtle = crypto.subtle as typeof crypto.subtle & {
    timingSafeEqual?: (x: ArrayBufferView, y: ArrayBufferView) => boolean;
  };
  if (typeof subtle.timingSafeEqual === 'function') return subtle.timingSafeEqual(a, b);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** `generations`: those of the pointer the isolate read last (a rotation counts from then). */
export function createWebCryptoKeyring(secret: string, generations: KeyGenerations): KeyVerifier {
  const hmacKey = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const memo = new BoundedMap<string, Uint8Array>(MAX_MEMO_ENTRIES);

  async function expectedKey(siteId: string, generation: number): Promise<Uint8Array> {
    const signature = await crypto.subtle.sign(
      'HMAC',
      await hmacKey,
      encoder.encode(keyMessage('pk', siteId, generation)),
    );
    return encoder.encode(`pk_${siteId}.${base64url(new Uint8Array(signature))}`);
  }

  return {
    grant(unsafeKey, knownSites): KeyGrant | null | Promise<KeyGrant | null> {
      const parsed = parseKey(unsafeKey);
      // The site is checked before anything is computed or remembered: made-up sites cost nothing.
      if (parsed?.scope !== 'public' || !knownSites.has(parsed.siteId)) return null;
      const { siteId } = parsed;
      const generation = generations.generationOf(siteId);
      const memoKey = `${siteId}:${generation}`;
      const check = (expected: Uint8Array): KeyGrant | null =>
        constantTimeEqual(encoder.encode(unsafeKey), expected) ? { siteId, scope: 'public' } : null;
      const known = memo.get(memoKey);
      if (known) return check(known);
      return expectedKey(siteId, generation).then((expected) => {
        memo.set(memoKey, expected);
        return check(expected);
      });
    },
  };
}
