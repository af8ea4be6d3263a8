// Which branches `start --follow --previews <pattern>` previews: each pattern is a branch name in
// which `*` stands for any run of characters, `/` included (`*` is every branch, `content/*` every
// branch under content/). A pattern is checked as --branch is, before git sees anything; a branch
// name from the remote must pass branchProblem before it is matched at all.
import { branchProblem, FollowSourceError } from './follow-source.ts';

export interface BranchPatterns {
  /** The patterns as given, for the log. */
  readonly shown: string;
  /** Whether `branch` (a name branchProblem accepts) is one to preview. */
  matches(branch: string): boolean;
}

/** The patterns checked; FollowSourceError (a usage error) names the first that is not one. */
export function parseBranchPatterns(patterns: readonly string[]): BranchPatterns {
  const compiled = patterns.map((pattern) => {
    // The same rule as a branch name, with `*` read as a letter: what the pattern can match is a name.
    const problem = branchProblem(pattern.replaceAll('*', 'x'));
    if (problem) throw new FollowSourceError(`--previews ${JSON.stringify(pattern)}: ${problem}`);
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`);
  });
  return {
    shown: patterns.join(', '),
    matches: (branch) => branchProblem(branch) === null && compiled.some((re) => re.test(branch)),
  };
}
