// The content hash (src/export/content-hash.ts) that names and checks everything in dist/: the
// first 32 characters of SHA-256 in base64url, the same from a string or its UTF-8 bytes, from
// pieces or their whole, and on the edge Worker's path (@noble/hashes) as on Node's.
import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { base64url, hashBytes, hashParts } from '../../src/export/content-hash.ts';

const encoder = new TextEncoder();
const reference = (data: string | Uint8Array) => createHash('sha256').update(data).digest('base64url').slice(0, 32);
const samples = ['', 'a', '{"slug":"hello","title":"Grüße ☃"}', 'x'.repeat(100_000)];

describe('the content hash', () => {
  it('is SHA-256 in base64url, cut to 32 characters', () => {
    for (const text of samples) {
      const hash = hashBytes(text);
      expect(hash).toBe(reference(text));
      expect(hash).toMatch(/^[A-Za-z0-9_-]{32}$/);
    }
    expect(hashBytes('a')).not.toBe(hashBytes('b'));
  });

  it('is the same for a string and its UTF-8 bytes', () => {
    for (const text of samples) expect(hashBytes(encoder.encode(text))).toBe(hashBytes(text));
  });

  it('of pieces is that of the pieces joined, however they are cut', () => {
    const whole = encoder.encode('{"site":{"name":"One"},"total":2,"articles":[{"slug":"a"},{"slug":"b"}]}');
    for (const cuts of [[], [0], [1, 10], [5, 6, 7, whole.length]]) {
      const parts: Uint8Array[] = [];
      let from = 0;
      for (const at of [...cuts, whole.length]) {
        parts.push(whole.subarray(from, at));
        from = at;
      }
      expect(hashParts(parts), `cut at ${cuts.join(',')}`).toBe(hashBytes(whole));
    }
    expect(hashParts([])).toBe(hashBytes(''));
  });

  it('made as the Worker makes it (@noble/hashes, base64url by hand) is the one Node makes: an ETag is the same whoever answers', () => {
    for (const text of samples) expect(base64url(sha256(encoder.encode(text))).slice(0, 32)).toBe(hashBytes(text));
  });

  it('base64url: `-` and `_` for `+` and `/`, and no padding', () => {
    expect(base64url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    expect(base64url(new Uint8Array([0xfb, 0xef, 0xbe]))).toBe('----');
    expect(base64url(new Uint8Array([0xff, 0xff, 0xff]))).toBe('____');
    expect(base64url(new Uint8Array([]))).toBe('');
    expect(base64url(encoder.encode('f'))).toBe('Zg');
    for (const length of [1, 2, 3, 4, 31, 32, 33]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + 13) & 0xff);
      expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });
});
