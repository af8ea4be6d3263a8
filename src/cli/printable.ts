// Text from content (file names, image paths, front matter) and from receivers' replies reaches
// the terminal through the CLI. Control characters in it could move the cursor, rewrite earlier
// lines, set the window title, make links or reorder what is read (bidi overrides): they are
// shown escaped instead (see printable in src/content/issues.ts, the one definition).
import { printable } from '../content/issues.ts';

export { printable };

/** What the CLI writes to a terminal: its own line breaks and tab-separated columns kept, every other control character escaped. */
export function printableText(text: string): string {
  return text
    .split(/([\n\t])/)
    .map((part) => (part === '\n' || part === '\t' ? part : printable(part)))
    .join('');
}
