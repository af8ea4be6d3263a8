// patches/mdast-util-from-markdown+*.patch: the compiler hands every event handler one context
// object instead of a clone per event (the clone is the slow path measured in docs/benchmarks-log.md).
// If an upgrade drops the patch, parsing stays correct but a third slower; this says so.
import { fromMarkdown, type CompileContext } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';

describe('mdast-util-from-markdown patch', () => {
  it('gives every handler of a document the same context, with the current sliceSerialize', () => {
    const seen: { context: CompileContext; text: string }[] = [];
    const record = function (this: CompileContext, token: Parameters<CompileContext['sliceSerialize']>[0]) {
      seen.push({ context: this, text: this.sliceSerialize(token) });
    };
    // Token types the compiler has no handler of its own for, so recording them changes nothing.
    fromMarkdown('Some **strong**, *emphasis*\n\nand ``code``.', {
      mdastExtensions: [
        { enter: { strongSequence: record, emphasisSequence: record }, exit: { codeTextSequence: record } },
      ],
    });
    expect(seen.map((s) => s.text)).toEqual(['**', '**', '*', '*', '``', '``']);
    expect(new Set(seen.map((s) => s.context)).size).toBe(1);
  });
});
