// The content hashes dist/ is named and checked by: the manifest's body, payload and list
// hashes, ETags, the build's input keys and the export's object names. Build, API and the edge
// Worker all hash with these, so an ETag is the same whichever of them answers.
//
// No Node import: the Worker bundles this module too. Under Node the native hash is taken from
// the running process (one-shot crypto.hash is faster than createHash().update().digest() for
// the short keys a build hashes per article, and far faster than any hash in JavaScript:
// docs/benchmarks-log.md, "figures first recorded in code comments"); elsewhere (workerd has no
// synchronous Web Crypto digest) @noble/hashes computes the same SHA-256.
import { sha256 } from '@noble/hashes/sha2.js';

type NodeCrypto = typeof import('node:crypto');
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

const HASH_CHARS = 32;
const encoder = new TextEncoder();
const bytesOf = (data: string | Uint8Array): Uint8Array => (typeof data === 'string' ? encoder.encode(data) : data);

/** base64url without padding (what Node's 'base64url' digest gives). */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export const hashBytes: (data: string | Uint8Array) => string = nodeCrypto
  ? (data) => nodeCrypto.hash('sha256', data, 'base64url').slice(0, HASH_CHARS)
  : (data) => base64url(sha256(bytesOf(data))).slice(0, HASH_CHARS);

/** hashBytes() of the pieces joined, without joining them. */
export function hashParts(parts: Uint8Array[]): string {
  if (nodeCrypto) {
    const h = nodeCrypto.createHash('sha256');
    for (const part of parts) h.update(part);
    return h.digest('base64url').slice(0, HASH_CHARS);
  }
  const h = sha256.create();
  for (const part of parts) h.update(part);
  return base64url(h.digest()).slice(0, HASH_CHARS);
}
