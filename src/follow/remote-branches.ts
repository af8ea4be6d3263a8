// What a followed remote has: the branch its HEAD names (its default branch, followed when no
// --branch is given) and its branches (listed when the branch to follow is not one of them).
// Asked with `git ls-remote` through the hardened runner, in a folder Quire made (the checkout's),
// with the source's credentials as a fetch gets them.
import { runGit, type GitCallOptions } from '../git/git-runner.ts';
import { ProblemError } from '../problems/problem.ts';
import { printable } from '../text/printable.ts';
import { credentialEnvironment } from './credentials.ts';
import { branchProblem, displayUrl, type FollowSource } from './follow-source.ts';

/** How many of a remote's branches a message names at most. */
export const BRANCHES_SHOWN = 20;

export class FollowBranchMissingError extends ProblemError<'FOLLOW_BRANCH_MISSING'> {
  constructor(message: string) {
    super('FOLLOW_BRANCH_MISSING', message);
    this.name = 'FollowBranchMissingError';
  }
}

type RemoteCallOptions = Pick<GitCallOptions, 'timeoutMs' | 'maxBufferBytes'>;

/** What a listing of a remote's branches may print: about 80,000 of them (more is refused, not read). */
export const LS_REMOTE_MAX_BYTES = 8 * 1024 * 1024;

const lsRemote = (source: FollowSource, dir: string, options: string[], patterns: string[], opts: RemoteCallOptions) =>
  runGit({ kind: 'none', dir }, ['ls-remote', ...options, '--', source.url, ...patterns], {
    maxBufferBytes: LS_REMOTE_MAX_BYTES,
    ...opts,
    allowFileProtocol: source.local,
    env: credentialEnvironment(source.credentials),
  });

/** The remote's branches, sorted. */
export async function remoteBranches(
  source: FollowSource,
  dir: string,
  opts: RemoteCallOptions = {},
): Promise<string[]> {
  const out = await lsRemote(source, dir, ['--heads'], [], opts);
  const names = out.split('\n').flatMap((line) => /^[0-9a-f]{40,64}\trefs\/heads\/(.+)$/.exec(line)?.[1] ?? []);
  return [...new Set(names)].sort();
}

/**
 * The remote's branches and the commit each points at, leaving out every name Quire would not
 * follow (branchProblem): a name from the remote is input, and what is dropped here reaches nothing.
 */
export async function remoteBranchTips(
  source: FollowSource,
  dir: string,
  opts: RemoteCallOptions = {},
): Promise<Map<string, string>> {
  const out = await lsRemote(source, dir, ['--heads'], [], opts);
  const tips = new Map<string, string>();
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40,64})\trefs\/heads\/(.+)$/.exec(line);
    if (m && branchProblem(m[2]!) === null) tips.set(m[2]!, m[1]!);
  }
  return tips;
}

/** The branch the remote's HEAD names; FollowBranchMissingError when it names none this can follow. */
export async function defaultBranch(source: FollowSource, dir: string, opts: RemoteCallOptions = {}): Promise<string> {
  const out = await lsRemote(source, dir, ['--symref'], ['HEAD'], opts);
  const named = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out)?.[1];
  if (named !== undefined && branchProblem(named) === null) return named;
  const branches = await remoteBranches(source, dir, opts);
  if (!branches.length)
    throw new FollowBranchMissingError(`${displayUrl(source)} has no branches yet: push one (or check the URL)`);
  const why =
    named === undefined
      ? 'does not name a default branch (its HEAD is not a branch)'
      : `names "${printable(named)}" as its default branch, not a name Quire follows`;
  throw new FollowBranchMissingError(`${displayUrl(source)} ${why}; give --branch <b>: ${describeBranches(branches)}`);
}

/** The error for a branch the remote does not have, naming those it has. */
export function missingBranch(
  source: FollowSource,
  branch: string,
  branches: readonly string[],
): FollowBranchMissingError {
  return new FollowBranchMissingError(`${displayUrl(source)} has no branch "${branch}"; ${describeBranches(branches)}`);
}

/** `its branches: a, b, c (and 12 more)`, at most BRANCHES_SHOWN names; or that it has none. */
function describeBranches(branches: readonly string[]): string {
  if (!branches.length) return 'it has no branches yet (push one first)';
  const shown = branches
    .slice(0, BRANCHES_SHOWN)
    .map((b) => printable(b))
    .join(', ');
  const more = branches.length - BRANCHES_SHOWN;
  return `its branches: ${shown}${more > 0 ? ` (and ${more} more)` : ''}`;
}
