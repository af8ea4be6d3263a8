// Branch previews (`start --follow <url> --previews <pattern>`): beside the followed branch, every
// branch whose name matches is fetched into a worktree of its own and built into an export of its
// own in the state dir, drafts included, served only to preview keys that name it (`?ref=`,
// `Quire-Ref`). Nothing of it is published: no dist/, no publish state, no webhooks, no change
// feed; the build is the caller's (`build`), which writes only into the branch's folder. At each
// tick (and push notification) the remote's branches are listed: a branch whose commit moved is
// fetched and built again (a build that fails leaves its last good preview served), one that went
// is removed, and past `max` the least recently pushed are dropped, each with a line in the log.
// One branch is fetched or built at a time.
import fs from 'node:fs';
import type { ContentFacts } from '../content/load-content.ts';
import { errorText } from '../problems/problem.ts';
import { openLocalSnapshot, type LocalSnapshotReader } from '../snapshot/local-snapshot.ts';
import { timedReader, type ServedReader } from '../snapshot/timed-view.ts';
import { printable } from '../text/printable.ts';
import type { BranchPatterns } from './branch-pattern.ts';
import type { BranchRepository } from './branch-repository.ts';
import { noteTips, selectBranches, type SeenBranch } from './branch-selection.ts';
import {
  branchPaths,
  listBranchFolders,
  writeBranchRecord,
  writeFollowedBranch,
  type BranchPaths,
} from './branch-store.ts';
import { FollowSyncTooLargeError } from './checkout.ts';
import { createCoalescingRunner } from './coalescing-runner.ts';

/** What building a branch came to: served (ok) or not, and what it read and found (the admin shows it). */
export interface BranchBuildOutcome {
  ok: boolean;
  facts: ContentFacts;
}

export interface BranchPreviewsDeps {
  /** follow/branches/ in the state dir. */
  root: string;
  repository: BranchRepository;
  patterns: BranchPatterns;
  /** The followed branch (never previewed: it is what is published); null until the remote named it. */
  followed: () => string | null;
  /** Branches previewed at once (QUIRE_PREVIEW_BRANCHES_MAX). */
  max: number;
  /** Seconds between listings; 0: only on push notifications. */
  intervalSeconds: number;
  /** Builds the branch's checkout into its own folder; reports its problems itself. */
  build: (branch: string, paths: BranchPaths, commit: string) => Promise<BranchBuildOutcome>;
  out: (line: string) => void;
  err: (line: string) => void;
  now?: () => number;
}

export interface PreviewedBranch {
  branch: string;
  /** The commit served; null before the branch's first good build. */
  built: string | null;
  pushedAt: number;
  /** What its last build read and found; null before one in this process. */
  facts: ContentFacts | null;
  paths: BranchPaths;
}

export interface BranchPreviews {
  /** Takes up what an earlier run left (its good builds are served at once), then the first listing and the ticks. */
  start(): void;
  /** A push notification named `branch`: it counts as pushed now, and the remote is listed (coalesced). */
  pushed(branch: string): Promise<void>;
  /** Lists the remote now (coalesced: at most one run and one waiting). */
  trigger(): Promise<void>;
  stop(): Promise<void>;
  /** The preview of `branch` as served now; null when it is not previewed or has no good build. */
  reader(branch: string): ServedReader | null;
  /** The branches previewed, the most recently pushed first. */
  list(): PreviewedBranch[];
}

interface Entry extends PreviewedBranch {
  local: LocalSnapshotReader;
  served: ServedReader;
  /** The commit last fetched (built or not); null: fetch it. */
  synced: string | null;
}

export function createBranchPreviews(deps: BranchPreviewsDeps): BranchPreviews {
  const { root, repository, out, err } = deps;
  const now = deps.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const seen = new Map<string, SeenBranch>();
  const pending = new Set<string>();
  /** Branches left out past `max`, with the commit they were left out at: told once each. */
  const leftOut = new Map<string, string>();
  let first = true;
  let listingFails = false;
  let recordedFollowed: string | null = null;
  const shown = (branch: string) => printable(branch);

  const entryOf = (branch: string, pushedAt: number, built: string | null): Entry => {
    const paths = branchPaths(root, branch);
    const local = openLocalSnapshot(paths.dist, paths.state);
    if (built !== null) local.reload();
    return { branch, built, pushedAt, facts: null, paths, local, served: timedReader(local), synced: null };
  };
  const record = (e: Entry) => {
    try {
      writeBranchRecord(e.paths.dir, { branch: e.branch, pushedAt: e.pushedAt, built: e.built });
    } catch (cause) {
      err(`Branch preview ${shown(e.branch)}: its record could not be written: ${errorText(cause)}`);
    }
  };

  const remove = async (e: Entry, why: string) => {
    entries.delete(e.branch);
    try {
      await repository.remove(e.branch);
    } catch (cause) {
      err(`Branch preview ${shown(e.branch)}: removing its folder failed: ${errorText(cause)}`);
    }
    out(`Branch preview ${shown(e.branch)} removed: ${why}.`);
  };

  const refresh = async (branch: string, tip: string, pushedAt: number) => {
    let e = entries.get(branch);
    if (!e) entries.set(branch, (e = entryOf(branch, pushedAt, null)));
    const moved = e.pushedAt !== pushedAt;
    e.pushedAt = pushedAt;
    // Taken up from an earlier run, a branch is fetched and built once again (its build changes
    // nothing when nothing moved), so what it reads and finds is known here too.
    if (e.synced === tip) {
      if (moved) record(e);
      return;
    }
    let commit: string;
    try {
      ({ commit } = await repository.sync(branch, deps.followed()));
    } catch (cause) {
      // A commit too large stays too large: fetched again only once the branch moves.
      if (cause instanceof FollowSyncTooLargeError) e.synced = tip;
      const kept = e.built ? `its preview of ${e.built.slice(0, 12)} stays` : 'it has no preview yet';
      err(`Branch preview ${shown(branch)}: fetch failed (${kept}): ${errorText(cause)}`);
      return;
    }
    e.synced = commit;
    if (commit !== e.built || e.facts === null) {
      out(`Branch preview ${shown(branch)}: building commit ${commit.slice(0, 12)}.`);
      try {
        const outcome = await deps.build(branch, e.paths, commit);
        e.facts = outcome.facts;
        if (outcome.ok) {
          e.built = commit;
          e.local.reload();
          out(`Branch preview ${shown(branch)}: serving commit ${commit.slice(0, 12)}.`);
        } else {
          const kept = e.built
            ? `its preview of ${e.built.slice(0, 12)} stays`
            : 'it has no preview until a commit builds';
          err(`Branch preview ${shown(branch)}: commit ${commit.slice(0, 12)} does not build; ${kept}.`);
        }
      } catch (cause) {
        err(`Branch preview ${shown(branch)}: the build of ${commit.slice(0, 12)} failed: ${errorText(cause)}`);
      }
    }
    record(e);
  };

  const tick = async () => {
    // Which branch is the followed one is known once the remote named it: until then, none is previewed.
    const followed = deps.followed();
    if (followed === null) return;
    if (followed !== recordedFollowed) {
      writeFollowedBranch(root, followed);
      recordedFollowed = followed;
    }
    const pushedNow = new Set(pending);
    pending.clear();
    let tips: Map<string, string>;
    try {
      tips = await repository.tips();
      if (listingFails) out("Branch previews: the remote's branches are listed again.");
      listingFails = false;
    } catch (cause) {
      if (!listingFails) err(`Branch previews: the remote's branches could not be listed: ${errorText(cause)}`);
      listingFails = true;
      return;
    }
    const matching = new Map([...tips].filter(([b]) => b !== followed && deps.patterns.matches(b)));
    noteTips(seen, matching, {
      now: now(),
      first,
      pushed: pushedNow,
      recorded: (b) => entries.get(b)?.pushedAt ?? null,
    });
    first = false;
    const { keep, dropped } = selectBranches(seen, deps.max);
    const bound = `more than ${deps.max} branches match ${deps.patterns.shown} (QUIRE_PREVIEW_BRANCHES_MAX)`;
    for (const e of [...entries.values()]) {
      if (!matching.has(e.branch)) await remove(e, 'the branch is gone from the remote');
      else if (!keep.includes(e.branch)) await remove(e, `${bound}, and it is the least recently pushed`);
    }
    for (const branch of dropped) {
      const tip = seen.get(branch)!.tip;
      if (leftOut.get(branch) === tip) continue;
      leftOut.set(branch, tip);
      if (!entries.has(branch))
        out(`Branch preview ${shown(branch)} not made: ${bound}, and it is pushed least recently.`);
    }
    for (const branch of leftOut.keys()) if (!dropped.includes(branch)) leftOut.delete(branch);
    for (const branch of keep) {
      const { tip, pushedAt } = seen.get(branch)!;
      await refresh(branch, tip, pushedAt);
    }
  };

  const runner = createCoalescingRunner(tick);
  let timer: NodeJS.Timeout | null = null;
  return {
    start() {
      for (const { dir, record: found } of listBranchFolders(root)) {
        if (found) entries.set(found.branch, entryOf(found.branch, found.pushedAt, found.built));
        else fs.rmSync(dir, { recursive: true, force: true }); // not a branch folder this server can trust
      }
      void runner.trigger();
      if (deps.intervalSeconds > 0) {
        timer = setInterval(() => void runner.trigger(), deps.intervalSeconds * 1000);
        timer.unref();
      }
    },
    pushed(branch) {
      pending.add(branch);
      return runner.trigger();
    },
    trigger: () => runner.trigger(),
    async stop() {
      if (timer) clearInterval(timer);
      await runner.stop();
    },
    reader(branch) {
      const e = entries.get(branch);
      return e?.local.current() ? e.served : null;
    },
    list: () =>
      [...entries.values()]
        .sort((a, b) => b.pushedAt - a.pushedAt || (a.branch < b.branch ? -1 : 1))
        .map(({ branch, built, pushedAt, facts, paths }) => ({ branch, built, pushedAt, facts, paths })),
  };
}
