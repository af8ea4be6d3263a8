// The edge's Web Crypto keyring accepts exactly the keys the Node keyring makes, under the
// generations the pointer carries, and nothing else: not a key one character off (the last
// base64url character included, whose low bits a lax decoder would ignore), not a preview key.
import { describe, expect, it } from 'vitest';
import { createWebCryptoKeyring, constantTimeEqual } from '../../src/edge/web-crypto-keyring.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';

const SECRET = 'edge-keyring-secret-0123456789abcdef0123';
const generations: Record<string, number> = { one: 1, two: 5 };
const gens = { generationOf: (s: string) => generations[s] ?? 1 };
const sites = new Set(['one', 'two']);
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('createWebCryptoKeyring', () => {
  const node = createKeyring(SECRET, gens);
  const edge = createWebCryptoKeyring(SECRET, gens);

  it('grants what the Node keyring grants, once computed without a promise', async () => {
    for (const site of sites) {
      expect(await edge.grant(node.keyFor(site), sites)).toEqual({ siteId: site, scope: 'public' });
      expect(edge.grant(node.keyFor(site), sites)).toEqual({ siteId: site, scope: 'public' }); // remembered
    }
  });

  it('refuses every one-character change of a key, preview keys, rotated keys and unknown sites', async () => {
    const key = node.keyFor('two');
    for (const c of BASE64URL) {
      const changed = key.slice(0, -1) + c;
      if (changed !== key) expect(await edge.grant(changed, sites), changed).toBeNull();
    }
    expect(await edge.grant(node.previewKeyFor('two'), sites)).toBeNull();
    expect(node.grant(node.previewKeyFor('two'), sites)).toEqual({ siteId: 'two', scope: 'preview' });
    const before = createKeyring(SECRET, { generationOf: (s) => (s === 'two' ? 4 : 1) }).keyFor('two');
    expect(await edge.grant(before, sites)).toBeNull();
    expect(edge.grant(createKeyring(SECRET, gens).keyFor('three'), sites)).toBeNull(); // no promise: nothing computed
  });

  it('compares in constant time only equal lengths', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});
