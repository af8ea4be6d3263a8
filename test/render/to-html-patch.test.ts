// patches/hast-util-to-html+*.patch: a text node with neither `<` nor `&` is written as it is,
// without the encoder's options object and expression pass. Text must still be written with
// exactly `<` and `&` encoded, as hexadecimal references (the serializer's defaults).
import type { Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { describe, expect, it } from 'vitest';

const encoded = (value: string) => value.replace(/[<&]/g, (c) => (c === '<' ? '&#x3C;' : '&#x26;'));
const paragraph = (value: string): Root => ({
  type: 'root',
  children: [{ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value }] }],
});

describe('hast-util-to-html patch', () => {
  it('writes text with only `<` and `&` encoded, with and without them', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pieces = [
      'a',
      ' ',
      '<',
      '&',
      '>',
      '"',
      "'",
      '&amp;',
      'é',
      '😀',
      '\u0000',
      '\u0001',
      '\u007f',
      '\ud800',
      '=',
      '`',
      '\n',
    ];
    for (let i = 0; i < 5_000; i++) {
      let value = '';
      for (let n = Math.floor(random() * 12); n > 0; n--) value += pieces[Math.floor(random() * pieces.length)];
      expect(toHtml(paragraph(value)), JSON.stringify(value)).toBe(`<p>${encoded(value)}</p>`);
    }
  });

  it('still leaves script and style text alone, and encodes the rest', () => {
    const root: Root = {
      type: 'root',
      children: [{ type: 'element', tagName: 'style', properties: {}, children: [{ type: 'text', value: 'a<b&c' }] }],
    };
    expect(toHtml(root)).toBe('<style>a<b&c</style>');
    expect(toHtml(paragraph('plain text'))).toBe('<p>plain text</p>');
    expect(toHtml(paragraph('a < b && c'))).toBe('<p>a &#x3C; b &#x26;&#x26; c</p>');
  });
});
