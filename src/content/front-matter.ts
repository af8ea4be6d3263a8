// Splits a Markdown file into its front matter and body. Only YAML is ever read: a language tag
// after the opening `---` (`---js`, `---coffee`) is a content problem, never a parser to run, so
// no file in the content tree can make a build execute code. Same split as gray-matter, which
// this replaces: an opening `---` line (not `----`), then everything up to the next line that
// starts with `---`; one line break after it is not part of the body.
import { issue, type ContentIssue } from './issues.ts';

export type FrontMatterSplit =
  | {
      ok: true;
      /** The YAML text, starting with the line break after `---`, so its line numbers are the file's. */
      yaml: string;
      body: string;
      /** Line of the file where the body starts (1-based). */
      bodyLine: number;
    }
  | { ok: false; problem: ContentIssue };

const YAML_TAGS = new Set(['', 'yaml', 'yml']);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A copy of `text` that shares no memory with the string it was cut from. V8 keeps a substring
 * as a view of its parent, so every value read from the front matter (a title, a slug), kept for
 * the whole build and in the build state, would keep the whole file, body included, in memory:
 * 7 KB an article, 210 MB of a 30,000-article build's heap after loading (docs/benchmarks.md,
 * "Memory").
 */
const detached = (text: string): string => decoder.decode(encoder.encode(text));

export function splitFrontMatter(file: string, text: string): FrontMatterSplit {
  if (!text.startsWith('---') || text.charAt(3) === '-') return { ok: true, yaml: '', body: text, bodyLine: 1 };
  const lineEnd = text.search(/\r?\n/);
  const tag = (lineEnd === -1 ? text.slice(3) : text.slice(3, lineEnd)).trim();
  if (!YAML_TAGS.has(tag.toLowerCase())) {
    return {
      ok: false,
      problem: issue(
        file,
        { line: 1, column: 4 },
        'CONTENT_FRONTMATTER_LANGUAGE',
        `front matter in "${tag.slice(0, 40)}" is not read: only YAML front matter is`,
        {
          hint: 'open the front matter with a line that is just `---` and write it in YAML',
        },
      ),
    };
  }
  const rest = lineEnd === -1 ? '' : text.slice(lineEnd);
  const close = rest.indexOf('\n---');
  if (close === -1) {
    return {
      ok: false,
      problem: issue(
        file,
        { line: 1, column: 1 },
        'CONTENT_FRONTMATTER_UNCLOSED',
        'the front matter opened here has no closing `---` line',
        {
          hint: 'end the front matter with a line `---`, or start the file with something other than `---`',
        },
      ),
    };
  }
  let body = rest.slice(close + 4);
  if (body[0] === '\r') body = body.slice(1);
  if (body[0] === '\n') body = body.slice(1);
  return {
    ok: true,
    yaml: detached(rest.slice(0, close)),
    body,
    bodyLine: countLines(text, text.length - body.length) + 1,
  };
}

/** Line breaks in text[0, end). */
function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
