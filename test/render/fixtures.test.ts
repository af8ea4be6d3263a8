// Golden files: each fixtures/<case>/input.md renders to exactly fixtures/<case>/output.html, and
// every golden output is inert. `UPDATE_FIXTURES=1 npx vitest run test/render/fixtures.test.ts`
// rewrites the output files; review the diff before committing it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, type RenderInput } from '../../src/render/render-markdown.ts';
import { assertInert } from '../helpers/assert-inert.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const UPDATE = process.env.UPDATE_FIXTURES === '1';

/** The one image the fixtures' site holds. */
const resolveImage = (sitePath: string) =>
  sitePath === 'images/x.png' ? 'https://cdn.example.test/assets/site/x.abc.png' : undefined;

/** Render settings that differ from the defaults, by case. */
const OVERRIDES: Record<string, Partial<RenderInput>> = {
  'footnotes-fr': { lang: 'fr' },
};

const cases = fs
  .readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('golden fixtures', () => {
  it('finds the fixture cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
  });

  it.each(cases)('%s', (name) => {
    const dir = path.join(FIXTURES, name);
    const markdown = fs.readFileSync(path.join(dir, 'input.md'), 'utf8');
    const { html } = renderMarkdown({
      markdown,
      lang: 'en',
      articleDir: 'articles',
      bodyLine: 1,
      resolveImage,
      ...OVERRIDES[name],
    });
    assertInert(html);

    const outputFile = path.join(dir, 'output.html');
    const rendered = `${html}\n`;
    if (UPDATE) {
      fs.writeFileSync(outputFile, rendered);
      return;
    }
    expect(fs.existsSync(outputFile), `${outputFile} is missing: run with UPDATE_FIXTURES=1`).toBe(true);
    expect(rendered).toBe(fs.readFileSync(outputFile, 'utf8'));
  });
});
