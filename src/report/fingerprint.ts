// A problem's fingerprint, by which GitLab (and code scanning) tell a problem that is still there
// from a new one between two runs: a hash of the code, the file and the message with its numbers
// taken out, then the problem's rank among the file's problems that are otherwise the same. Not
// the line or column: adding a paragraph above a problem moves it, and it stays the same problem.
// Messages name the field, the value, the image or the link (its text and target), which is what
// tells two problems of a file apart; numbers in them are lengths and sizes, which change as the
// editor works on the very thing the problem is about.
import { createHash } from 'node:crypto';

/** A number standing on its own (`187 characters`), not part of a name (`post-2`, `h1`). */
const STANDALONE_NUMBER = /(?<![\p{L}\p{N}_+.-])\d+(?:\.\d+)?(?![\p{L}\p{N}_-])/gu;

/** One fingerprint per problem, in the order given (file order: the rank follows it). */
export function fingerprintsOf(problems: readonly { code: string; path: string; message: string }[]): string[] {
  const seen = new Map<string, number>();
  return problems.map(({ code, path, message }) => {
    const subject = JSON.stringify([code, path, message.replace(STANDALONE_NUMBER, '#')]);
    const rank = seen.get(subject) ?? 0;
    seen.set(subject, rank + 1);
    return createHash('sha256').update(`quire-fingerprint-1\0${subject}\0${rank}`).digest('hex');
  });
}
