// The commit a publish is made from, and what changed in a site's folder since the last one.
import path from 'node:path';
import { runGit } from '../git/git-runner.ts';
import type { GitRepository } from '../git/repository.ts';

async function git(repository: GitRepository, args: string[]): Promise<string | null> {
  try {
    return await runGit(repository, args, { maxBufferBytes: 64 * 1024 * 1024 });
  } catch {
    return null;
  }
}

export interface Revision {
  /** HEAD, or null outside a git repository (or before the first commit). */
  commit: string | null;
  /** Uncommitted changes under the content dir: published from disk, not from the commit. */
  dirty: boolean;
  /** Where both were read, for later questions about the same repository. */
  repository: GitRepository | null;
}

export const NO_REVISION: Revision = Object.freeze({ commit: null, dirty: false, repository: null });

/** HEAD of `repository` (as located for the content folder) and whether `contentDir` has uncommitted changes. */
export async function readRevision(repository: GitRepository | null, contentDir: string): Promise<Revision> {
  if (!repository) return NO_REVISION;
  const commit = (await git(repository, ['rev-parse', '--verify', '-q', 'HEAD']))?.trim() || null;
  if (!commit) return NO_REVISION;
  const status = await git(repository, [
    'status',
    '--porcelain',
    '--ignore-submodules=all',
    '--',
    relativeTo(repository, contentDir),
  ]);
  return { commit, dirty: !!status?.trim(), repository };
}

/** Files of `dir` that git sees changed between two commits (renames count once), or null. */
export async function changedFilesSince(
  repository: GitRepository,
  dir: string,
  from: string,
  to: string,
): Promise<number | null> {
  if (!COMMIT_ID.test(from) || !COMMIT_ID.test(to)) return null; // `from` comes from the state store
  const out = await git(repository, ['diff', '--name-only', '-M', `${from}..${to}`, '--', relativeTo(repository, dir)]);
  return out === null ? null : out.split('\n').filter(Boolean).length;
}

/** Files of `dir` with uncommitted changes (staged, unstaged or untracked), or null. */
export async function uncommittedFilesIn(repository: GitRepository, dir: string): Promise<number | null> {
  const out = await git(repository, [
    'status',
    '--porcelain',
    '--untracked-files=all',
    '--ignore-submodules=all',
    '--',
    relativeTo(repository, dir),
  ]);
  return out === null ? null : out.split('\n').filter(Boolean).length;
}

const COMMIT_ID = /^[0-9a-f]{40,64}$/;

const relativeTo = (repository: GitRepository, dir: string): string =>
  path.relative(repository.workTree, path.resolve(dir)) || '.';
