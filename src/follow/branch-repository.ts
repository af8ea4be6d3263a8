// The one repository every previewed branch is fetched into (follow/branches/repo/), each branch
// checked out in a worktree of its own: their history is shared, so a branch's fetch brings only
// what it adds. A sync is the followed checkout's (checkout.ts), per branch: the branch fetched by
// URL into a private ref (forced), with the followed branch beside it (the base `quire preview
// --changed` compares with), the fetch stopped past the bound, the commit's tree measured before it
// is written, then checked out exactly (forced, untracked files removed). Every call through the
// hardened runner; every branch name has passed branchProblem, and goes after `--` or into a refspec.
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../config/state-dir.ts';
import { runGit, type GitTarget } from '../git/git-runner.ts';
import { branchPaths, REPOSITORY_FOLDER } from './branch-store.ts';
import { commitAt, fetchWithinBound, refuseLargeTree, type SyncResult } from './checkout.ts';
import { branchProblem, type FollowSource } from './follow-source.ts';
import { remoteBranchTips } from './remote-branches.ts';

/** The setting a branch's sync is bounded by (its messages name it). */
const BOUND = 'QUIRE_PREVIEW_BRANCH_MAX_BYTES';
/** Where the followed branch is kept beside the previewed ones. */
export const BASE_REF = 'refs/quire/base';
const COMMIT = /^[0-9a-f]{40,64}$/;

export interface BranchRepository {
  /** The remote's branches and their newest commits (names Quire follows only). */
  tips(): Promise<Map<string, string>>;
  /** Fetches `branch` (and `base`, when known) and makes its worktree exactly the branch's newest commit. */
  sync(branch: string, base: string | null): Promise<SyncResult>;
  /** Removes the branch's worktree, folder and ref. */
  remove(branch: string): Promise<void>;
}

export interface BranchRepositoryOptions {
  /** follow/branches/ in the state dir. */
  root: string;
  source: FollowSource;
  /** Bytes one fetch may receive, and the size of a tree that may be checked out. */
  maxBytes: number;
  timeoutMs?: number;
}

/** The ref a previewed branch is fetched into: named by its folder, so no two names can clash. */
export const previewRef = (root: string, branch: string): string =>
  `refs/quire/previews/${path.basename(branchPaths(root, branch).dir)}`;

/** The shared repository (its work tree stays empty: branches are checked out in worktrees). */
export const repositoryOf = (root: string): GitTarget & { kind: 'repository' } => {
  const dir = path.join(root, REPOSITORY_FOLDER);
  return { kind: 'repository', gitDir: path.join(dir, '.git'), workTree: dir };
};

export function createBranchRepository({
  root,
  source,
  maxBytes,
  timeoutMs,
}: BranchRepositoryOptions): BranchRepository {
  const repository = repositoryOf(root);
  const opts = { timeoutMs, maxBytes };
  const git = (target: GitTarget, args: string[]) => runGit(target, args, opts);
  const worktreeOf = (branch: string): GitTarget => {
    const { checkout } = branchPaths(root, branch);
    return { kind: 'repository', gitDir: path.join(checkout, '.git'), workTree: checkout };
  };
  const ready = async () => {
    // git writes with the umask: the folders, their user's only, keep drafts from others.
    makePrivateDir(repository.workTree);
    if (!fs.existsSync(repository.gitDir)) await git({ kind: 'none', dir: repository.workTree }, ['init', '-q']);
  };
  const headOf = async (target: GitTarget) =>
    (await runGit(target, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], opts).catch(() => '')).trim() || null;

  return {
    async tips() {
      await ready();
      return remoteBranchTips(source, repository.workTree, { timeoutMs });
    },

    async sync(branch, base) {
      for (const name of [branch, base])
        if (name !== null && branchProblem(name)) throw new Error(`not a branch: ${name}`);
      await ready();
      const paths = branchPaths(root, branch);
      makePrivateDir(paths.dir);
      const ref = previewRef(root, branch);
      const refspecs = [`+refs/heads/${branch}:${ref}`, ...(base === null ? [] : [`+refs/heads/${base}:${BASE_REF}`])];
      await fetchWithinBound(repository, source, refspecs, { ...opts, setting: BOUND, writeFetchHead: false });
      const commit = await commitAt(repository, ref, opts);
      await refuseLargeTree(repository, commit, maxBytes, BOUND);
      const worktree = worktreeOf(branch);
      const previous = fs.existsSync(path.join(paths.checkout, '.git')) ? await headOf(worktree) : null;
      if (previous === null) {
        // No worktree (or a broken one): made again. `prune` forgets a worktree whose folder went.
        fs.rmSync(paths.checkout, { recursive: true, force: true });
        await git(repository, ['worktree', 'prune']);
        await git(repository, ['worktree', 'add', '-q', '--force', '--detach', paths.checkout, commit]);
      } else {
        await git(worktree, ['-c', 'advice.detachedHead=false', 'checkout', '-q', '--force', '--detach', commit, '--']);
        await git(worktree, ['clean', '-q', '-ffdx']);
      }
      return { commit, previous };
    },

    async remove(branch) {
      const paths = branchPaths(root, branch);
      fs.rmSync(paths.dir, { recursive: true, force: true });
      if (!fs.existsSync(repository.gitDir)) return;
      await git(repository, ['worktree', 'prune']);
      await git(repository, ['update-ref', '-d', previewRef(root, branch)]);
    },
  };
}

/**
 * The files a branch changed since it left `base` (`git diff base...commit`: from their merge
 * base), as paths in the repository. Read-only, for commands beside the server.
 */
export async function changedFiles(root: string, base: string, commit: string): Promise<string[]> {
  for (const name of [base, commit])
    if (!/^refs\/quire\/[a-z0-9/-]+$/.test(name) && !COMMIT.test(name))
      throw new Error(`not a ref Quire keeps: ${name}`);
  const out = await runGit(repositoryOf(root), [
    'diff',
    '--name-only',
    '--no-renames',
    '-z',
    `${base}...${commit}`,
    '--',
  ]);
  return out.split('\0').filter((name) => name !== '');
}
