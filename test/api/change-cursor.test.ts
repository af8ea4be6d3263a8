// The change feed's cursor: what one encodes decodes to the same; anything else (cut short,
// mistyped, made up, oversized) is not a cursor, never another position.
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, siteTag } from '../../src/api/change-cursor.ts';

const made = { storeId: '0123456789abcdef', siteId: 'my-site', position: 4711 };

describe('change cursors', () => {
  it('decode to what they were made of, with the site as its tag', () => {
    const cursor = encodeCursor(made);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ storeId: made.storeId, site: siteTag('my-site'), position: 4711 });
    expect(siteTag('my-site')).not.toBe(siteTag('my-sitf'));
    expect(decodeCursor(encodeCursor({ ...made, siteId: 'x'.repeat(255), position: 0 }))).toMatchObject({
      position: 0,
    });
  });

  it('refuses every cursor changed in one character, cut short or lengthened', () => {
    const cursor = encodeCursor(made);
    const same = JSON.stringify(decodeCursor(cursor));
    for (let i = 0; i < cursor.length; i++) {
      for (const ch of ['A', 'z', '0', '_']) {
        const changed = cursor.slice(0, i) + ch + cursor.slice(i + 1);
        if (changed === cursor) continue;
        // A base64 digit's unused low bits may change nothing: then it is the same cursor.
        const decoded = decodeCursor(changed);
        if (decoded !== null) expect(JSON.stringify(decoded)).toBe(same);
      }
    }
    for (let n = 1; n < cursor.length - 1; n++) expect(decodeCursor(cursor.slice(0, n))).toBeNull();
    expect(decodeCursor(`${cursor}A`)).toBeNull();
    expect(decodeCursor(`${cursor}AAAA`)).toBeNull();
  });

  it('refuses what is not one', () => {
    for (const bad of [
      '',
      'nonsense',
      '%00',
      'c1.0123456789abcdef.x.1',
      btoa('c1.0123456789abcdef.abcdefghijkl.1.abcdefgh'),
      'A'.repeat(161),
    ])
      expect(decodeCursor(bad), bad).toBeNull();
  });
});
