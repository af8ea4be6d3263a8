// Where a branch's preview is, for a command beside the server that makes it (`quire preview
// --ref`, `--changed`): the followed branch is what the server serves (this process's content and
// dist/), a previewed one is its folder in the state dir (src/follow/branch-store.ts). A branch
// the server does not preview, or has not built yet, is BRANCH_NOT_PREVIEWED.
import { branchPreviewsDir } from '../config/state-layout.ts';
import { BASE_REF, previewRef } from '../follow/branch-repository.ts';
import { findBranch, readFollowedBranch } from '../follow/branch-store.ts';
import { withCode } from '../problems/problem.ts';
import type { App } from './app.ts';

export interface BranchLocation {
  branch: string;
  /** The content tree its articles are read from. */
  contentDir: string;
  /** Its export and the state dir that holds its drafts' trees. */
  distDir: string;
  stateDir: string;
  /** Where its commits are in the previews' repository: a ref, and the commit built (null: the followed branch, as fetched). */
  gitRef: string;
  built: string | null;
}

/** `branch`'s preview (a name branchProblem accepts), or the message (with its code) that says why there is none. */
export function locateBranch(app: App, branch: string): BranchLocation | string {
  const { config } = app;
  const root = branchPreviewsDir(config.stateDir);
  const followed = readFollowedBranch(root);
  if (branch === followed)
    return {
      branch,
      contentDir: app.content().dir,
      distDir: config.distDir,
      stateDir: config.stateDir,
      gitRef: BASE_REF,
      built: null,
    };
  const found = findBranch(root, branch);
  if (!found?.record.built)
    return withCode(
      `no preview of the branch "${branch}" in ${config.stateDir}: ${
        found
          ? 'the server has not built one yet (see its log)'
          : `the server beside this command previews it only when it matches --previews${followed ? ` (it follows "${followed}")` : ' (no server that previews branches ran here)'}`
      }`,
      'BRANCH_NOT_PREVIEWED',
    );
  return {
    branch,
    contentDir: found.paths.content,
    distDir: found.paths.dist,
    stateDir: found.paths.state,
    gitRef: previewRef(root, branch),
    built: found.record.built,
  };
}
