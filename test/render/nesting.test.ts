// src/render/nesting.ts: the line scan that refuses too-deep bodies before parsing reads
// character codes in place; it must give what the rule, written plainly, gives (the version it
// replaced, kept here as the reference), on random lines of the characters the rule looks at.
import { describe, expect, it } from 'vitest';
import { deepestBlockLine, type DeepPlace } from '../../src/render/nesting.ts';

function plainDeepestBlockLine(markdown: string, limit: number): DeepPlace | null {
  let line = 1;
  let fence: string | null = null;
  for (let start = 0; start <= markdown.length; line++) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const text = markdown.slice(start, end);
    start = end + 1;
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence !== null) {
      if (opener && opener[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (opener) {
      fence = opener[1]!;
      continue;
    }
    const markers = plainContainerMarkers(text);
    const indent = /^[ \t]*/.exec(text)![0].replace(/\t/g, '    ').length;
    if (markers + (markers > 0 ? Math.floor(indent / 2) : 0) > limit) return { line, column: 1 };
    if (markers === 0 && indent >= 4) continue;
    if (/^[ \t]*([*_])(?:[ \t]*\1)*[ \t]*$/.test(text)) continue;
    let best = { at: 0, length: 0 };
    for (const m of text.matchAll(/\*+|_+/g))
      if (m[0].length > best.length) best = { at: m.index, length: m[0].length };
    if (best.length > limit) return { line, column: best.at + 1 };
  }
  return null;
}

function plainContainerMarkers(text: string): number {
  let i = 0;
  let markers = 0;
  const skipSpace = () => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  skipSpace();
  for (;;) {
    const c = text[i];
    if (c === '>') i++;
    else if ((c === '-' || c === '*' || c === '+') && (text[i + 1] === ' ' || text[i + 1] === '\t')) i++;
    else if (c !== undefined && c >= '0' && c <= '9') {
      let j = i;
      while (j - i < 9 && text[j] !== undefined && text[j]! >= '0' && text[j]! <= '9') j++;
      if ((text[j] === '.' || text[j] === ')') && (text[j + 1] === ' ' || text[j + 1] === '\t')) i = j + 1;
      else break;
    } else break;
    markers++;
    skipSpace();
  }
  return markers;
}

/** Seeded, so a failure names a document that can be replayed. */
function randomDocuments(count: number): string[] {
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pieces = [
    ' ',
    '  ',
    '\t',
    '>',
    '> ',
    '- ',
    '* ',
    '+ ',
    '-',
    '*',
    '**',
    '***',
    '_',
    '__',
    '1. ',
    '12) ',
    '1234567890. ',
    '```',
    '````',
    '~~~',
    '`',
    'a',
    'word ',
    '\r',
    '\n',
    '\n',
    '\n',
  ];
  return Array.from({ length: count }, () => {
    const n = Math.floor(next() * 120);
    let doc = '';
    for (let i = 0; i < n; i++) doc += pieces[Math.floor(next() * pieces.length)];
    return doc;
  });
}

describe('deepestBlockLine', () => {
  it('agrees with the plain rule on random lines, for small and real limits', () => {
    const documents = randomDocuments(20_000);
    let found = 0;
    for (const limit of [1, 2, 3, 5, 8]) {
      for (const doc of documents) {
        const expected = plainDeepestBlockLine(doc, limit);
        if (expected) found++;
        expect(deepestBlockLine(doc, limit), JSON.stringify({ doc, limit })).toEqual(expected);
      }
    }
    expect(found).toBeGreaterThan(10_000); // the random lines do reach the limits
  });

  it('finds deep quotes, lists, indentation and delimiter runs, and skips code and rules', () => {
    const cases: [string, DeepPlace | null][] = [
      [`ok\n${'>'.repeat(101)} deep`, { line: 2, column: 1 }],
      [`${'- '.repeat(101)}deep`, { line: 1, column: 1 }],
      [`${'\t'.repeat(50)}- x`, { line: 1, column: 1 }],
      [`${'\t'.repeat(49)}- x`, null],
      [`a ${'_'.repeat(101)} b ${'*'.repeat(101)}`, { line: 1, column: 3 }],
      [`a ${'_'.repeat(100)} b ${'*'.repeat(101)}`, { line: 1, column: 106 }],
      [`\`\`\`\n${'*'.repeat(500)}\n\`\`\``, null],
      [`~~~~\n~~~\n${'*'.repeat(500)}x\n~~~~\n${'*'.repeat(500)}x`, { line: 5, column: 1 }],
      [`    ${'*'.repeat(500)}x`, null],
      ['* * *\n_ _ _', null],
    ];
    for (const [doc, expected] of cases) {
      expect(deepestBlockLine(doc, 100)).toEqual(expected);
      expect(plainDeepestBlockLine(doc, 100)).toEqual(expected);
    }
  });
});
