// Text from content (file names, image paths, front matter), from receivers' replies and from
// requests reaches terminals and logs. Control characters in it could move the cursor, rewrite
// earlier lines, set the window title, make links or reorder what is read (bidi overrides): they
// are shown escaped instead.

// C0 (line breaks and tabs too), DEL, C1, the bidi controls (ALM, LRM, RLM, embeddings and
// overrides, isolates) and the Unicode line and paragraph separators: they could move the
// cursor, rewrite earlier lines or reorder what is read.
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One untrusted value (a message quoting content, a file name, a reply), safe to print: every
 * control character shown as `\u001b`, a form that is visible and still valid inside JSON strings.
 */
export function printable(unsafe: string): string {
  return unsafe.replace(UNPRINTABLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What a command writes to a terminal: its own line breaks and tab-separated columns kept, every other control character escaped. */
export function printableText(text: string): string {
  return text
    .split(/([\n\t])/)
    .map((part) => (part === '\n' || part === '\t' ? part : printable(part)))
    .join('');
}
