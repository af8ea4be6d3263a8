// A server that follows a repository (`quire start --follow`): the options checked (by the
// command line, before anything starts), the checkout made before the first build, and the
// follower whose every new commit goes through `publish` (the same lock, outbox and retries as
// `quire publish`), its build's facts shown by the admin's Articles tab. Part of the server
// process (server-process.ts).
import path from 'node:path';
import type { Hono } from 'hono';
import type { BuildCaches, BuildResult, BuildSettings } from '../compile/build.ts';
import type { QuireConfig } from '../config/config.ts';
import { followCheckoutDir } from '../config/state-layout.ts';
import { createCheckout, type Checkout } from '../follow/checkout.ts';
import { createFollower, type Follower, type PublishOutcome } from '../follow/follower.ts';
import {
  displayUrl,
  FollowSourceError,
  parseFollowSource,
  redactUrl,
  type FollowSource,
} from '../follow/follow-source.ts';
import { parseBranchPatterns, type BranchPatterns } from '../follow/branch-pattern.ts';
import type { BranchPreviews } from '../follow/branch-previews.ts';
import { createHookApp } from '../follow/hook-routes.ts';
import { errorText } from '../problems/problem.ts';
import { publish } from '../publish/publish.ts';
import type { DeliveryDeps } from '../delivery/delivery-runner.ts';
import type { Output } from './output.ts';
import { printPlan, printReport } from './publish-report.ts';

export interface FollowArgs {
  url: string;
  branch: string | undefined;
  intervalSeconds: number;
  /** `--previews` patterns: the branches previewed beside the followed one (none: no previews). */
  previews: readonly string[];
}

export interface FollowPlan {
  source: FollowSource;
  intervalSeconds: number;
  checkout: Checkout;
  /** The branches to preview (--previews); null: none. */
  previews: BranchPatterns | null;
}

/** The checked options, or an error message (a usage error: exit 2). */
export function planFollow(config: QuireConfig, args: FollowArgs): FollowPlan | string {
  let source: FollowSource;
  let previews: BranchPatterns | null;
  try {
    source = parseFollowSource(args.url, args.branch ?? null, process.cwd());
    previews = args.previews.length ? parseBranchPatterns(args.previews) : null;
  } catch (e) {
    if (e instanceof FollowSourceError) return e.message;
    throw e;
  }
  if (source.credentials) hideFromProcessTitle(args.url);
  const { intervalSeconds } = args;
  if (intervalSeconds === 0 && config.gitHookSecret === null)
    return '--interval 0 fetches only on push notifications: set QUIRE_GIT_HOOK_SECRET for POST /hooks/git';
  return {
    source,
    intervalSeconds,
    checkout: createCheckout(followCheckoutDir(config.stateDir), source, { maxBytes: config.followMaxBytes }),
    previews,
  };
}

/**
 * A process's command line is readable by every local user (`ps`): the URL's credentials are
 * taken out of this process's own, as far as it can (the command typed stays in the shell's
 * history, and is visible until here; docs/own-repository.md says to prefer git's credential helpers).
 */
function hideFromProcessTitle(secretUrl: string): void {
  process.title = [path.basename(process.argv[0] ?? 'node'), ...process.argv.slice(1)]
    .map((a) => (a === secretUrl ? redactUrl(a) : a))
    .join(' ');
}

/** The content tree a follower builds: content/ in its checkout. */
export const followedContentDir = (plan: FollowPlan): string => path.join(plan.checkout.dir, 'content');

/**
 * Before the first build: the checkout brought up to date, or the failure reported (what is there
 * is built). False when there is no checkout at all to build: nothing was ever fetched.
 */
export async function syncBeforeStart({ out, err }: Output, plan: FollowPlan): Promise<boolean> {
  out(`Fetching ${displayUrl(plan.source)} (${followedBranch(plan)}) …`);
  try {
    const { commit } = await plan.checkout.sync();
    out(`Checked out ${commit.slice(0, 12)} (${followedBranch(plan)}).`);
    return true;
  } catch (e) {
    err(`Fetch failed: ${errorText(e)}`);
    if (await plan.checkout.head()) return true;
    const which =
      plan.source.branch === null
        ? 'its default branch; --branch <b> names another'
        : `--branch <b>; this is "${plan.source.branch}"`;
    err(`Nothing has been checked out from ${displayUrl(plan.source)} yet: check the URL, and the branch (${which}).`);
    return false;
  }
}

/** Asks for `branch`'s preview to be made again (the answer does not wait for it). */
function previewed(previews: BranchPreviews, branch: string): true {
  void previews.pushed(branch);
  return true;
}

/** The branch as the log names it: the remote's default until the remote was asked which that is. */
export const followedBranch = (plan: FollowPlan): string => plan.checkout.branch() ?? 'its default branch';

export interface FollowingDeps {
  /** What a build needs, with the checkout's content/ (read at each build: the public URL is decided at listen). */
  settings: () => BuildSettings;
  caches: BuildCaches;
  /** The state store and client, or null when the state store cannot be read: then builds only. */
  publishing: DeliveryDeps | null;
  /** The server's own build (reports and records the facts itself): used without a state store. */
  build: () => Promise<BuildResult | null>;
  /** Records a build the follower's publish made: the log, metrics, the admin's Articles tab. */
  noteBuild: (result: BuildResult) => void;
  /** Serves the build in dist/ now, if it is a new one: what the webhooks announce is served before they are sent. */
  serveNewBuild: () => void;
  /** The branch previews (--previews), refreshed by push notifications that name their branch; null: none. */
  previews: BranchPreviews | null;
}

/** The follower, not yet started, and the push endpoint to mount at /hooks (null without a secret). */
export function createFollowing(
  config: QuireConfig,
  output: Output,
  plan: FollowPlan,
  deps: FollowingDeps,
): { follower: Follower; hooks: Hono | null } {
  const { out, err } = output;
  const publishCommit = async (): Promise<PublishOutcome> => {
    if (!deps.publishing) {
      const result = await deps.build();
      if (!result?.ok) err('The last good build stays up.');
      return 'done';
    }
    const report = await publish(
      {
        ...deps.publishing,
        settings: deps.settings(),
        caches: deps.caches,
        untilServed: async () => deps.serveNewBuild(),
      },
      // First attempts now; retries are the delivery worker's, as for any queued delivery.
      // A short wait for the lock (stopping the server waits for this run): a held lock is retried soon.
      {
        siteId: null,
        dryRun: false,
        baseline: false,
        retryWindowMs: 0,
        lockWaitMs: 5_000,
        onBuild: deps.noteBuild,
        onPlan: (p) => printPlan(p, output),
      },
    );
    if (report.status === 'build-failed') {
      err('Nothing was published; the last good build stays up.');
      return 'done'; // the same commit would fail the same way: wait for the next one
    }
    if (report.status === 'locked') {
      err(`Another publish holds the lock (pid ${report.holder.pid} on ${report.holder.host}); trying again shortly.`);
      return 'retry';
    }
    printReport(report, output);
    return 'done';
  };
  const follower = createFollower({
    checkout: plan.checkout,
    intervalSeconds: plan.intervalSeconds,
    publish: publishCommit,
    out,
    err,
  });
  const secret = config.gitHookSecret;
  const { previews } = deps;
  const patterns = plan.previews;
  const hooks =
    secret === null
      ? null
      : createHookApp({
          secret,
          branch: () => plan.checkout.branch(),
          trigger: () => void follower.trigger(),
          log: out,
          preview:
            previews && patterns ? (branch) => patterns.matches(branch) && previewed(previews, branch) : undefined,
        });
  return { follower, hooks };
}
