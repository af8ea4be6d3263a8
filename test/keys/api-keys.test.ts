import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';

const SECRET = 'test-secret-0123456789abcdef0123456789abcdef';
const SIGNATURE = 'A'.repeat(43);

/** Generations that count how often a key had to be worked out. */
function countingGenerations() {
  const asked: string[] = [];
  return { asked, generationOf: (siteId: string) => (asked.push(siteId), 1) };
}

describe('createKeyring().verify', () => {
  it('accepts the key of a known site and refuses it for an unknown one', () => {
    const keyring = createKeyring(SECRET, { generationOf: () => 1 });
    const key = keyring.keyFor('alpha');
    expect(keyring.verify(key, new Set(['alpha']))).toBe('alpha');
    expect(keyring.verify(key, new Set(['beta']))).toBeNull();
    expect(keyring.verify(`${key.slice(0, -1)}B`, new Set(['alpha']))).toBeNull();
  });

  it('checks the site before computing or remembering anything for a well-formed key', () => {
    const generations = countingGenerations();
    const keyring = createKeyring(SECRET, generations);
    const known = new Set(['alpha']);
    for (let i = 0; i < 5000; i++) expect(keyring.verify(`pk_made-up-${i}.${SIGNATURE}`, known)).toBeNull();
    expect(generations.asked).toEqual([]);
    keyring.verify(`pk_alpha.${SIGNATURE}`, known);
    expect(generations.asked).toEqual(['alpha']);
  });

  it('keeps working, and stays correct, with more known sites than it remembers', () => {
    const keyring = createKeyring(SECRET, { generationOf: () => 1 });
    const sites = Array.from({ length: 3000 }, (_, i) => `site-${i}`);
    const known = new Set(sites);
    const keys = sites.map((s) => keyring.keyFor(s));
    for (const [i, key] of keys.entries()) expect(keyring.verify(key, known)).toBe(sites[i]);
    expect(keyring.verify(keys[0]!, known)).toBe('site-0');
  });
});
