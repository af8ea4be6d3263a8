// Branch previews of a server that follows a repository (`start --follow <url> --previews
// <pattern>`): the previewer (src/follow/branch-previews.ts) given its repository and its build.
// Each branch is built as `quire build` builds, into its own folder in the state dir (its export,
// its drafts' trees, its build caches; a render cache the branches share): never dist/, the
// publish state, the outbox or the change feed, which only the followed branch's publish touches.
// Part of the server process (server-process.ts).
import type { AdminBranches } from '../admin/admin-deps.ts';
import type { RefReaders } from '../api/middleware/key-auth.ts';
import { buildExport, type BuildCaches } from '../compile/build.ts';
import { loadBuildState } from '../compile/build-state.ts';
import { createRenderCache } from '../compile/render-cache.ts';
import type { QuireConfig } from '../config/config.ts';
import { makePrivateDir } from '../config/state-dir.ts';
import { branchPreviewsDir } from '../config/state-layout.ts';
import { createBranchPreviews, type BranchPreviews } from '../follow/branch-previews.ts';
import { createBranchRepository } from '../follow/branch-repository.ts';
import type { ServedReader } from '../snapshot/timed-view.ts';
import { printable } from '../text/printable.ts';
import { reportBuild } from './build-report.ts';
import type { FollowPlan } from './following.ts';
import type { Output } from './output.ts';

/** The previewer of `plan`'s --previews branches, not yet started; null without --previews. */
export function createBranchPreviewing(
  config: QuireConfig,
  { out, err }: Output,
  plan: FollowPlan,
  publicUrl: () => string,
): BranchPreviews | null {
  const patterns = plan.previews;
  if (!patterns) return null;
  const root = branchPreviewsDir(config.stateDir);
  makePrivateDir(root);
  const render = createRenderCache(root);
  return createBranchPreviews({
    root,
    repository: createBranchRepository({ root, source: plan.source, maxBytes: config.previewBranchMaxBytes }),
    patterns,
    followed: () => plan.checkout.branch(),
    max: config.previewBranchesMax,
    intervalSeconds: plan.intervalSeconds,
    out,
    err,
    async build(branch, paths) {
      makePrivateDir(paths.state);
      const caches: BuildCaches = { state: loadBuildState(paths.state), render };
      const result = await buildExport(
        { contentDir: paths.content, distDir: paths.dist, stateDir: paths.state, publicUrl: publicUrl() },
        caches,
      );
      // Its lines say which branch they are of; its problems name files as in the repository.
      const prefix = `[preview ${printable(branch)}] `;
      reportBuild(result, (line) => (result.ok ? out : err)(prefix + line.trimStart()), paths.checkout);
      return { ok: result.ok, facts: { sites: result.loaded, issues: result.issues } };
    },
  });
}

/** What a ref reads: the followed branch is the build served, any other a previewed branch (or nothing). */
export function refReaders(plan: FollowPlan, served: ServedReader, previews: BranchPreviews | null): RefReaders {
  return { reader: (ref) => (ref === plan.checkout.branch() ? served : (previews?.reader(ref) ?? null)) };
}

/** The branches the admin's Articles tab can show. */
export function adminBranches(plan: FollowPlan, previews: BranchPreviews): AdminBranches {
  return {
    followed: () => plan.checkout.branch(),
    list: () =>
      previews.list().map((b) => ({
        branch: b.branch,
        built: b.built,
        facts: b.facts,
        contentDir: b.paths.content,
        reader: previews.reader(b.branch),
      })),
  };
}
