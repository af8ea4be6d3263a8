// The one way the content tree is read. Nothing in it may lead outside it: git stores symbolic
// links, so a contributor can commit `images -> /srv/quire/.quire` and have a build copy the
// server's secret into dist/. Links are therefore refused everywhere in the tree (a link that
// stays inside is refused too: one rule, and no file is published under two names); folders are
// checked before they are listed, files are opened with O_NOFOLLOW and read only up to a limit.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../problems/problem.ts';
import { issue, START, type ContentIssue } from './issues.ts';
import { CONTENT_LIMITS } from './limits.ts';

const NO_FOLLOW = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW;

export function symlinkIssue(file: string): ContentIssue {
  return issue(
    file,
    START,
    'CONTENT_SYMLINK',
    'is a symbolic link: the content tree may hold no links, so nothing in it can reach files outside it',
    {
      hint: 'replace the link with the file or folder itself',
    },
  );
}

export function tooLargeIssue(file: string, size: number, limit: number): ContentIssue {
  return issue(file, START, 'CONTENT_TOO_LARGE', `file is ${size} bytes; the limit is ${limit}`, {
    hint: 'split the article, or move large data out of the content tree',
  });
}

/**
 * A file of the content tree, or null (with the problem in `issues`) when it is a link, not a
 * regular file, or larger than `maxBytes`. Read synchronously: content files are small, and one
 * synchronous open, stat, read and close cost a fraction of the same calls through the thread
 * pool and their promises (docs/benchmarks-log.md, "a cold build's output").
 */
export function readContentFile(file: string, maxBytes: number, issues: ContentIssue[]): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, NO_FOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') issues.push(symlinkIssue(file));
    else issues.push(issue(file, START, 'CONTENT_UNREADABLE', `cannot read the file (${code ?? 'error'})`));
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      issues.push(issue(file, START, 'CONTENT_UNREADABLE', 'is not a regular file'));
      return null;
    }
    if (stat.size > maxBytes) {
      issues.push(tooLargeIssue(file, stat.size, maxBytes));
      return null;
    }
    // Read at most one byte past the limit, whatever the size said: the file may grow meanwhile.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const bytesRead = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) {
      issues.push(tooLargeIssue(file, length, maxBytes));
      return null;
    }
    return buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether `dir` is a real folder (not a link); a link is a problem, an absent folder is not. */
export function isRealFolder(dir: string, issues: ContentIssue[]): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (err) {
    // Absent is fine (a site without authors/); a folder that is there but cannot be looked at
    // is not absent: its files would silently drop out of the build (and be unpublished).
    if (isMissingFile(err)) return false;
    issues.push(
      issue(
        dir,
        START,
        'CONTENT_UNREADABLE',
        `cannot read the folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      ),
    );
    return false;
  }
  if (stat.isSymbolicLink()) {
    issues.push(symlinkIssue(dir));
    return false;
  }
  return stat.isDirectory();
}

/** Counts files across the whole tree against CONTENT_LIMITS.files; one problem when it runs out. */
export interface FileBudget {
  left: number;
  exhausted: boolean;
}

export function createFileBudget(limit: number = CONTENT_LIMITS.files): FileBudget {
  return { left: limit, exhausted: false };
}

/**
 * Every regular file under `dir` (a real folder, see isRealFolder), skipping dot-files. Links
 * are problems and are not followed; past the file budget the walk stops with one problem.
 */
export async function walkFiles(dir: string, issues: ContentIssue[], budget: FileBudget): Promise<string[]> {
  if (!isRealFolder(dir, issues)) return [];
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(folder, { withFileTypes: true });
    } catch (err) {
      issues.push(
        issue(
          folder,
          START,
          'CONTENT_UNREADABLE',
          `cannot list the folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        ),
      );
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = folder + path.sep + e.name; // folder is already normal; path.join would normalize it again for every file
      if (e.isSymbolicLink()) {
        issues.push(symlinkIssue(full));
        continue;
      }
      if (!e.isDirectory() && !e.isFile()) continue;
      // Folders count too: a tree of empty folders is work to walk as well.
      if (budget.left-- <= 0) {
        if (!budget.exhausted) {
          budget.exhausted = true;
          issues.push(
            issue(
              full,
              START,
              'CONTENT_TOO_MANY_FILES',
              `the content tree has more than ${CONTENT_LIMITS.files} files and folders; the rest were not read`,
            ),
          );
        }
        return;
      }
      if (e.isDirectory()) await walk(full);
      else out.push(full);
    }
  };
  await walk(dir);
  return out;
}

/**
 * Throws unless `file`, with every link resolved, is a regular file of at most `maxBytes` inside
 * `folder`: the last check before a file is copied out of the content tree into the export.
 */
export function assertInsideFolder(file: string, folder: string, maxBytes: number): void {
  const real = fs.realpathSync(file);
  const root = fs.realpathSync(folder);
  const stat = fs.lstatSync(file);
  if (!real.startsWith(root + path.sep) || !stat.isFile() || stat.size > maxBytes) {
    throw new Error(
      `refusing to export ${path.basename(file)}: it is not a file of at most ${maxBytes} bytes inside ${path.basename(folder)}/`,
    );
  }
}
