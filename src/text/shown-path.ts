// A path as the user would type it from the working directory (as content problems name files).
import path from 'node:path';

/** `dir` relative to `from` (default: the working directory), with `/` between its parts; `.` for `from` itself. */
export function shownPath(dir: string, from: string = process.cwd()): string {
  const relative = path.relative(from, dir);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}
