// A content tree must hold nothing git would take for a repository. git reads a repository's
// config, and a config can name programs to run (core.fsmonitor, hooks): a commit that adds
// `HEAD`, `objects/`, `refs/` and a `config` under content/ is a repository git would find from
// there. Quire never lets git look (src/git/), and refuses such a tree as well, before any git
// call, so the plant is reported where it stands instead of lying there unnoticed.
import fs from 'node:fs';
import path from 'node:path';
import { issue, START, type ContentIssue } from './issues.ts';
import { CONTENT_LIMITS } from './limits.ts';
import { isMissingFile } from '../problems/problem.ts';

/** Entries the scan looks at before it gives up (and fails): the whole tree, not only the sites' folders. */
export const MAX_SCANNED_ENTRIES = CONTENT_LIMITS.files * 2;

/** What makes a folder a git directory besides `HEAD` (git's own test, is_git_directory). */
const GIT_DIR_PARTS = new Set(['objects', 'refs', 'commondir']);

/**
 * Every place under `contentDir` (itself included, at any depth, dot-folders too) that holds a
 * `.git` file or folder, or is a folder with `HEAD` and `objects`, `refs` or `commondir`. Links
 * are not followed (the content loader refuses them). A tree too large to scan, or a folder
 * that cannot be listed, is a problem too: what was not looked at is not known to be clean.
 */
export function findRepositoryLookalikes(contentDir: string): ContentIssue[] {
  const issues: ContentIssue[] = [];
  const folders = [contentDir];
  let budget = MAX_SCANNED_ENTRIES;
  while (folders.length) {
    const folder = folders.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The root's absence is the loader's problem to report (CONTENT_NO_SITES).
      if (folder === contentDir && isMissingFile(err)) return issues;
      issues.push(
        issue(
          folder,
          START,
          'CONTENT_UNREADABLE',
          `cannot list the folder (${code ?? 'error'}), so it cannot be checked for repository files`,
        ),
      );
      continue;
    }
    budget -= entries.length;
    if (budget < 0) {
      issues.push(
        issue(
          folder,
          START,
          'CONTENT_TOO_MANY_FILES',
          `the content tree has more than ${MAX_SCANNED_ENTRIES} files and folders in all; it was not checked to the end`,
        ),
      );
      return issues;
    }
    let hasHead = false;
    let hasGitDirPart = false;
    for (const e of entries) {
      if (e.name === '.git') {
        issues.push(
          lookalike(
            path.join(folder, e.name),
            `a ${e.isDirectory() ? 'folder' : 'file'} named .git: the content tree may hold no git repository`,
          ),
        );
      } else if (e.name === 'HEAD') hasHead = true;
      else if (GIT_DIR_PARTS.has(e.name)) hasGitDirPart = true;
      if (e.isDirectory()) folders.push(path.join(folder, e.name));
    }
    if (hasHead && hasGitDirPart) {
      issues.push(
        lookalike(
          path.join(folder, 'HEAD'),
          'HEAD beside objects/ or refs/: git would take this folder for a repository (and run what its config names)',
        ),
      );
    }
  }
  return issues;
}

const lookalike = (file: string, message: string): ContentIssue =>
  issue(file, START, 'CONTENT_GIT_REPOSITORY', message, {
    hint: 'remove these files: they are not content, and a repository inside the content tree is refused',
  });
