// patches/mdast-util-to-hast+*.patch: the definitions of a document are collected by a plain
// pre-order walk instead of unist-util-visit (whose per-node closures and ancestor arrays were a
// tenth of rendering link-heavy documents, docs/benchmarks-log.md). Same order, so the same
// definition wins when a label is defined twice.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.ts';

const render = (markdown: string) =>
  renderMarkdown({ markdown, lang: 'en', articleDir: 'articles', bodyLine: 1, resolveImage: () => undefined }).html;

describe('mdast-util-to-hast patch', () => {
  it('is applied', () => {
    const entry = createRequire(import.meta.url).resolve('mdast-util-to-hast');
    const state = fs.readFileSync(path.join(path.dirname(entry), 'lib', 'state.js'), 'utf8');
    expect(state).toContain('walkDefinitions(tree)');
    expect(state).not.toContain("from 'unist-util-visit'");
  });

  it('finds definitions nested in quotes, lists and footnotes; the first of a label wins', () => {
    const html = render(
      [
        'See [a][x], [b][y], [c][z] and a note[^n].',
        '',
        '> [x]: https://quote.example/1',
        '',
        '- item',
        '',
        '  [Y]: https://list.example/2',
        '',
        '[^n]: Note with [d][w].',
        '',
        '    [w]: https://footnote.example/3',
        '',
        '[x]: https://second.example/ignored',
        '[z]: https://root.example/4',
      ].join('\n'),
    );
    expect(html).toContain('href="https://quote.example/1"');
    expect(html).toContain('href="https://list.example/2"');
    expect(html).toContain('href="https://root.example/4"');
    expect(html).toContain('href="https://footnote.example/3"');
    expect(html).not.toContain('second.example');
  });
});
