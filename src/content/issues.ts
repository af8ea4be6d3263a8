// Problems with content are data with a place: collected, reported together, fatal only at the end.
import path from 'node:path';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { printable } from '../text/printable.ts';

/** Every content code is in the problem catalogue (area `content`), with its meaning and fix. */
export type IssueCode = CodeIn<'content'>;

export interface ContentIssue extends Problem<IssueCode> {
  /** Absolute path of the file the problem is in. */
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  hint?: string;
  /** Another place the problem involves (the first article with a duplicate slug). */
  other?: { file: string; line: number; column: number };
}

export interface Place {
  line: number;
  column: number;
}

export const START: Place = Object.freeze({ line: 1, column: 1 });

export function issue(
  file: string,
  place: Place,
  code: IssueCode,
  message: string,
  opts: { hint?: string; severity?: 'error' | 'warning'; other?: ContentIssue['other'] } = {},
): ContentIssue {
  const out: ContentIssue = {
    file,
    line: place.line,
    column: place.column,
    message,
    code,
    severity: opts.severity ?? 'error',
  };
  if (opts.hint) out.hint = opts.hint;
  if (opts.other) out.other = { file: opts.other.file, line: opts.other.line, column: opts.other.column };
  return out;
}

/** `path:line:col`, path relative to `cwd`. */
export function formatPlace(i: Pick<ContentIssue, 'file' | 'line' | 'column'>, cwd: string = process.cwd()): string {
  return `${path.relative(cwd, i.file) || i.file}:${i.line}:${i.column}`;
}

/**
 * `path:line:col  message  [CODE]`, path relative to `cwd`, then an indented hint. Messages quote
 * content, so control characters are shown escaped (see printable) instead of reaching the terminal.
 */
export function formatIssue(i: ContentIssue, cwd: string = process.cwd()): string {
  const label = i.severity === 'warning' ? 'warning: ' : '';
  const other = i.other ? ` (the other: ${formatPlace(i.other, cwd)})` : '';
  const head = printable(`${formatPlace(i, cwd)}  ${label}${i.message}${other}  [${i.code}]`);
  return i.hint ? `${head}\n    hint: ${printable(i.hint)}` : head;
}

export function sortIssues(issues: ContentIssue[]): ContentIssue[] {
  return [...issues].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

export const hasErrors = (issues: readonly ContentIssue[]): boolean => issues.some((i) => i.severity === 'error');
