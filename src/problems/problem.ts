// The one shape of a problem: a catalogued code and a message in plain words, with the place it
// is in when there is one. Returned as data where the caller decides (`{ ok: false, ...problem }`),
// thrown as a ProblemError where nothing can go on; what to do is the catalogue's `fix`.
import { CATALOGUE, type ProblemCode } from './catalogue.ts';

export interface Problem<C extends ProblemCode = ProblemCode> {
  code: C;
  message: string;
}

/** A message as a command prints it: the code at the end of its first line (`message  [CODE]`). */
export function withCode(message: string, code: ProblemCode): string {
  const end = message.indexOf('\n');
  return end === -1 ? `${message}  [${code}]` : `${message.slice(0, end)}  [${code}]${message.slice(end)}`;
}

/** Any error as a line to print: a problem with its code (`message  [CODE]`), anything else by its message. */
export function errorText(err: unknown): string {
  if (err instanceof ProblemError) return withCode(err.message, err.code);
  return err instanceof Error ? err.message : String(err);
}

/** What to do about a code (the catalogue's `fix`). */
export const fixFor = (code: ProblemCode): string => CATALOGUE[code].fix;

/** The codes whose catalogue entry makes their message from parameters. */
export type TemplatedCode = {
  [C in ProblemCode]: (typeof CATALOGUE)[C] extends { message: (params: never) => string } ? C : never;
}[ProblemCode];

/** What the message of a templated code is made from. */
export type MessageParams<C extends TemplatedCode> = (typeof CATALOGUE)[C] extends {
  message: (params: infer P) => string;
}
  ? P
  : never;

/** A problem with the catalogue's message for its code, made from `params`. */
export function problemOf<C extends TemplatedCode>(code: C, params: MessageParams<C>): Problem<C> {
  const template = (CATALOGUE[code] as { message: (params: MessageParams<C>) => string }).message;
  return { code, message: template(params) };
}

/** A problem that stops a command or the server; every error class Quire throws on purpose is one. */
export class ProblemError<C extends ProblemCode = ProblemCode> extends Error implements Problem<C> {
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProblemError';
    this.code = code;
  }
}

/**
 * Whether a failed file read means "not there": ENOENT, or ENOTDIR (a file stands where a folder
 * on the path should be, so the file cannot exist). A file that exists but cannot be read (EACCES,
 * EPERM, EISDIR, ELOOP, EIO…) is a fault to report, never a reason to fall back to a default.
 */
export function isMissingFile(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
