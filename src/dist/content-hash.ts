// The content hashes dist/ is named and checked by: the manifest's body, payload and list
// hashes, ETags, and the build's input keys. Build and API both hash with these.
import { createHash, hash } from 'node:crypto';

// One-shot crypto.hash is ~4x faster than createHash().update().digest() for the short keys a
// build hashes for every article.
export const hashBytes = (data: string | Uint8Array): string => hash('sha256', data, 'base64url').slice(0, 32);

/** hashBytes() of the pieces joined, without joining them. */
export function hashParts(parts: Uint8Array[]): string {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest('base64url').slice(0, 32);
}
