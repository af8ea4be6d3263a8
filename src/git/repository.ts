// Which repository a content tree belongs to, decided by Quire, not discovered by git. The
// content folder is checked first: it must be a real folder (not a link), hold nothing git would
// take for a repository (src/content/repository-lookalikes.ts), and, when it is in a repository,
// stay inside it once every link on its path is resolved. Then the repository is the nearest
// folder above the content folder with a `.git` (git refuses to check out a path named `.git`,
// so no commit can plant one there); every later git call names it explicitly (git-runner.ts).
import fs from 'node:fs';
import path from 'node:path';
import { issue, START, type ContentIssue } from '../content/issues.ts';
import { findRepositoryLookalikes } from '../content/repository-lookalikes.ts';
import { isMissingFile } from '../problems/problem.ts';
import { GitCommandError, runGit, type GitTarget } from './git-runner.ts';

export type GitRepository = Extract<GitTarget, { kind: 'repository' }>;

export interface RepositoryLookup {
  /** The repository the content folder is in; null outside one, or when `issues` forbid using git. */
  repository: GitRepository | null;
  /** Problems with the content folder itself; when there are any, git must not run. */
  issues: ContentIssue[];
}

export async function locateContentRepository(contentDir: string): Promise<RepositoryLookup> {
  const root = path.resolve(contentDir);
  const rootIssue = contentRootIssue(root);
  if (rootIssue) return { repository: null, issues: [rootIssue] };
  const issues = findRepositoryLookalikes(root);
  if (issues.length) return { repository: null, issues };
  const repository = findEnclosingRepository(root);
  if (!repository) return { repository: null, issues: [] };
  const realRoot = realPathOrNull(root);
  const realTree = realPathOrNull(repository.workTree);
  if (realRoot && realTree && realRoot !== realTree && !realRoot.startsWith(realTree + path.sep)) {
    return {
      repository: null,
      issues: [
        issue(
          root,
          START,
          'CONTENT_ROOT_OUTSIDE',
          `the content folder is ${realRoot} once links are resolved, outside the repository at ${repository.workTree}`,
        ),
      ],
    };
  }
  await confirmOwnership(repository);
  return { repository, issues: [] };
}

/**
 * The work tree of the repository the content folder is in, found as locateContentRepository
 * finds it but without running git: for naming files relative to it, also when git may not run
 * (a planted repository in the content tree). Null outside a repository.
 */
export function workTreeAbove(contentDir: string): string | null {
  return findEnclosingRepository(path.resolve(contentDir))?.workTree ?? null;
}

/** A content root that is a link is refused: it could point anywhere, and git stores links. */
function contentRootIssue(root: string): ContentIssue | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(root);
  } catch (err) {
    if (isMissingFile(err)) return null; // the loader says there are no sites
    return issue(
      root,
      START,
      'CONTENT_UNREADABLE',
      `cannot read the content folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (!stat.isSymbolicLink()) return null;
  return issue(
    root,
    START,
    'CONTENT_ROOT_OUTSIDE',
    'the content folder is a symbolic link: it must be a real folder, so that nothing outside the repository is built',
    {
      hint: 'replace the link with the folder itself, or point QUIRE_CONTENT_DIR at the real folder',
    },
  );
}

/**
 * The nearest folder above `root` (never `root` itself: the scan has refused a `.git` there)
 * holding `.git`, without crossing into another file system, as git's own discovery stops there.
 */
function findEnclosingRepository(root: string): GitRepository | null {
  let device: number | null = null;
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      return null;
    }
    if (device !== null && stat.dev !== device) return null;
    device = stat.dev;
    const gitDir = path.join(dir, '.git');
    if (fs.existsSync(gitDir)) return { kind: 'repository', gitDir, workTree: dir };
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * git refuses a repository another user owns unless the user's config lists it in
 * safe.directory; naming the git dir explicitly would skip that check, so it is made here. Only
 * when the owner differs is git asked (discovery confined to the work tree, where `.git` is).
 */
async function confirmOwnership(repository: GitRepository): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const owners = [repository.workTree, repository.gitDir].map((p) => fs.statSync(p).uid);
  if (owners.every((owner) => owner === uid)) return;
  try {
    await runGit({ kind: 'none', dir: repository.workTree }, ['rev-parse', '--absolute-git-dir']);
  } catch (err) {
    if (err instanceof GitCommandError)
      throw new GitCommandError(`the repository at ${repository.workTree} is not used: ${err.message}`);
    throw err;
  }
}

function realPathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}
