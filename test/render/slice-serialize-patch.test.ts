// patches/micromark+*.patch (create-tokenizer): `sliceSerialize` returns a token within one text
// chunk as that chunk's slice, without making the one-chunk view (`sliceStream`) and joining it.
// Every token of every event here is serialized both ways, with and without tab expansion: by
// the patched function, and by micromark's own serializer (copied below) over `sliceStream`.
import fs from 'node:fs';
import path from 'node:path';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import type { Chunk, Extension } from 'micromark-util-types';
import { describe, expect, it } from 'vitest';
import { corpusBodies, micromarkDir, parse, postprocess, preprocess } from '../helpers/micromark-internals.ts';

/** micromark's `serializeChunks` (create-tokenizer.js) as published. */
function serializeChunks(chunks: Chunk[], expandTabs?: boolean): string {
  let index = -1;
  const result: string[] = [];
  let atTab: boolean | undefined;
  while (++index < chunks.length) {
    const chunk = chunks[index]!;
    let value: string;
    if (typeof chunk === 'string') value = chunk;
    else
      switch (chunk) {
        case -5:
          value = '\r';
          break;
        case -4:
          value = '\n';
          break;
        case -3:
          value = '\r\n';
          break;
        case -2:
          value = expandTabs ? ' ' : '\t';
          break;
        case -1:
          if (!expandTabs && atTab) continue;
          value = ' ';
          break;
        default:
          value = String.fromCharCode(chunk as number);
      }
    atTab = chunk === -2;
    result.push(value);
  }
  return result.join('');
}

const GFM: Extension[] = [gfmAutolinkLiteral(), gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];

/** How many tokens were compared, and how many of them lay within one chunk (the patched path). */
let compared = 0;
let withinOneChunk = 0;

function expectSameText(markdown: string): void {
  for (const extensions of [[], GFM]) {
    const events = postprocess(
      parse({ extensions })
        .document()
        .write(preprocess()(markdown, undefined, true)),
    );
    for (const [, token, context] of events) {
      for (const expandTabs of [false, true]) {
        const serialize = () => context.sliceSerialize(token, expandTabs);
        let stock: string;
        try {
          stock = serializeChunks(context.sliceStream(token), expandTabs);
        } catch {
          expect(serialize).toThrow(); // the development build's assertions refuse some tokens
          continue;
        }
        expect(serialize(), `${token.type} in ${JSON.stringify(markdown)}`).toBe(stock);
      }
      compared++;
      if (token.start._index === token.end._index) withinOneChunk++;
    }
  }
}

const DOCUMENTS = [
  'plain *em* **strong** `code` [link](https://example.com/a_b "title") ![img](i.png) [ref] [^1]',
  'a\tb\t\tc\n\ttabbed\n  \t mixed\n\0nul\0 &amp; &#35; \\* \\\\ and\r\ncrlf\rcr',
  '```js\tmeta\n\tcode\n```\n\n    indented\tcode\n\n> quote\tlazy\n- item\n  - nested\t[ ] x\n\n| a\t| b |\n| - | - |\n| c | d |',
  '[ref]: https://example.com\t"multi\nline title"\n[^1]: note\n\tcontinued\n\n# heading\t#\nSetext\t\n===',
  '',
  'x',
];

describe('micromark sliceSerialize patch', () => {
  it('is applied', () => {
    for (const build of ['lib', path.join('dev', 'lib')]) {
      const source = fs.readFileSync(path.join(micromarkDir, build, 'create-tokenizer.js'), 'utf8');
      expect(source, build).toContain('return chunk.slice(token.start._bufferIndex, token.end._bufferIndex)');
    }
  });

  it('gives every token the text micromark’s serializer gives', () => {
    compared = 0;
    withinOneChunk = 0;
    for (const markdown of [...DOCUMENTS, ...corpusBodies('standard', 10), ...corpusBodies('dense', 20)])
      expectSameText(markdown);
    expect(withinOneChunk).toBeGreaterThan(1000);
    expect(compared).toBeGreaterThan(withinOneChunk); // tokens over several chunks were compared too
  });
});
