// Text from content (file names, image paths, front matter) and from receivers' replies reaches
// the terminal through the CLI. Control characters in it could move the cursor, rewrite earlier
// lines, set the window title, make links or reorder what is read (bidi overrides): they are
// shown escaped instead, as `\u001b`, a form that is visible and still valid inside JSON strings.

// C0 but tab and line feed, DEL, C1, the bidi controls (ALM, LRM, RLM, embeddings and overrides,
// isolates) and the Unicode line and paragraph separators.
const CONTROL_IN_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_IN_VALUE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One untrusted value (a file name, a reply), safe to print: every control character escaped, line breaks and tabs too. */
export function printable(unsafe: string): string {
  return unsafe.replace(CONTROL_IN_VALUE, escape);
}

/** What the CLI writes to a terminal: its own line breaks and tab-separated columns kept, every other control character escaped. */
export function printableText(text: string): string {
  return text.replace(CONTROL_IN_TEXT, escape);
}
