// Code blocks of the docs that tests run, so what a reader copies is what was proven: each such
// block follows an HTML comment `<!-- tested: <name> -->` on the line before its opening fence.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The text of the fenced block marked `<!-- tested: name -->` in `docFile` (relative to the repo). */
export function testedBlock(docFile: string, name: string): string {
  const doc = fs.readFileSync(path.join(ROOT, docFile), 'utf8');
  const marker = `<!-- tested: ${name} -->\n`;
  const at = doc.indexOf(marker);
  if (at < 0 || doc.indexOf(marker, at + 1) >= 0)
    throw new Error(`${docFile} must have exactly one "${marker.trim()}"`);
  const m = /^```[^\n]*\n([\s\S]*?)^```$/m.exec(doc.slice(at + marker.length));
  if (m?.index !== 0) throw new Error(`${docFile}: no code block right after "${marker.trim()}"`);
  return m[1]!;
}

/** `text` with each key replaced by its value; every key must occur (so a doc edit cannot silently skip one). */
export function substitute(text: string, replacements: Record<string, string>): string {
  let out = text;
  for (const [from, to] of Object.entries(replacements)) {
    if (!out.includes(from)) throw new Error(`the documented block no longer contains "${from}"`);
    out = out.split(from).join(to);
  }
  return out;
}
