// The server's own working tree of the followed branch, kept in the state dir. A sync fetches the
// branch by URL into a private ref (forced: a force-push moves it back as well as forward), then
// checks that commit out and removes anything else: the tree is exactly the remote branch, never
// a merge. Full history is fetched, not a shallow clone: article dates come from it.
// What a sync may write is bounded (QUIRE_FOLLOW_MAX_BYTES): the fetch is stopped once the pack it
// receives grows past the bound, and a commit whose tree is larger is never checked out (a file of
// zeros is small on the wire and large on disk, so the tree is measured before it is written).
// Without --branch the branch is the remote's default, asked of it at the first sync that reaches
// it and kept for the life of the process; a fetch that fails on a branch the remote does not have
// says which branches it has.
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../config/state-dir.ts';
import { ProblemError } from '../problems/problem.ts';
import { GitCommandError, runGit, type GitTarget } from '../git/git-runner.ts';
import { credentialEnvironment } from './credentials.ts';
import { defaultBranch, missingBranch, remoteBranches } from './remote-branches.ts';
import type { FollowSource } from './follow-source.ts';
import { MAX_TREE_FILES, measureTree } from './tree-size.ts';
import { printable } from '../text/printable.ts';

/** Where the fetched branch is kept in the checkout; not a branch, so nothing checks it out by name. */
const FOLLOWED_REF = 'refs/quire/followed';

/** How often the pack a fetch is receiving is measured. */
const FETCH_WATCH_MS = 50;

export class FollowSyncTooLargeError extends ProblemError<'FOLLOW_SYNC_TOO_LARGE'> {
  constructor(message: string) {
    super('FOLLOW_SYNC_TOO_LARGE', message);
    this.name = 'FollowSyncTooLargeError';
  }
}

export interface SyncResult {
  /** The commit now checked out. */
  commit: string;
  /** The commit checked out before this sync, or null (a new checkout). */
  previous: string | null;
}

export interface Checkout {
  /** The working tree (a git repository of its own). */
  readonly dir: string;
  /** Fetches the branch and makes the tree exactly its newest commit. */
  sync(): Promise<SyncResult>;
  /** The commit checked out now, or null before the first sync. */
  head(): Promise<string | null>;
  /** The branch followed: --branch, or the remote's default once asked; null until then. */
  branch(): string | null;
}

export interface CheckoutOptions {
  timeoutMs?: number;
  /** Bytes a fetch may receive, and the size of a tree that may be checked out. */
  maxBytes: number;
}

export function createCheckout(dir: string, source: FollowSource, opts: CheckoutOptions): Checkout {
  const repository: GitTarget = { kind: 'repository', gitDir: path.join(dir, '.git'), workTree: dir };
  const git = (args: string[], extra: { signal?: AbortSignal } = {}) => runGit(repository, args, { ...opts, ...extra });
  const exists = () => fs.existsSync(repository.gitDir);
  const head = async () => {
    if (!exists()) return null;
    return (await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}']).catch(() => '')).trim() || null;
  };
  let branch = source.branch;
  const fetch = async (followed: string) => {
    try {
      await fetchWithinBound(repository, source, [`+refs/heads/${followed}:${FOLLOWED_REF}`], {
        ...opts,
        setting: 'QUIRE_FOLLOW_MAX_BYTES',
      });
    } catch (e) {
      if (!(e instanceof GitCommandError) || e.timedOut) throw e;
      // Asked only once a fetch failed, so a good sync costs one call: a remote that answers and
      // lacks the branch says which it has; one that does not answer (or that timed out, which
      // would only wait again) leaves git's own words.
      const branches = await remoteBranches(source, dir, opts).catch(() => null);
      if (branches && !branches.includes(followed)) throw missingBranch(source, followed, branches);
      throw e;
    }
  };
  return {
    dir,
    head,
    branch: () => branch,
    async sync() {
      // git writes with the umask (0644): the folder, its user's only, keeps drafts from others.
      makePrivateDir(dir);
      if (!exists()) {
        await runGit({ kind: 'none', dir }, ['init', '-q'], opts);
      }
      const previous = await head();
      branch ??= await defaultBranch(source, dir, opts);
      await fetch(branch);
      const commit = await commitAt(repository, FOLLOWED_REF, opts);
      await refuseLargeTree(repository, commit, opts.maxBytes, 'QUIRE_FOLLOW_MAX_BYTES');
      await git(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--force', '--detach', commit, '--']);
      await git(['clean', '-q', '-ffdx']);
      return { commit, previous };
    },
  };
}

/**
 * Fetches `refspecs` from the source into `repository`, stopped once the pack it receives passes
 * `maxBytes` (the `setting` that says so). Every fetch is kept as one pack (never unpacked into
 * loose objects), so its size can be watched.
 */
export async function fetchWithinBound(
  repository: GitTarget & { kind: 'repository' },
  source: FollowSource,
  refspecs: string[],
  opts: CheckoutOptions & { setting: string; writeFetchHead?: boolean },
): Promise<void> {
  const { setting, writeFetchHead = true, ...runOptions } = opts;
  const watch = watchIncomingPack(repository.gitDir, opts.maxBytes, setting);
  try {
    await runGit(
      repository,
      [
        '-c',
        'fetch.unpackLimit=1',
        '-c',
        'transfer.unpackLimit=1',
        'fetch',
        '-q',
        '--no-tags',
        '--no-recurse-submodules',
        ...(writeFetchHead ? [] : ['--no-write-fetch-head']),
        '--',
        source.url,
        ...refspecs,
      ],
      {
        ...runOptions,
        signal: watch.signal,
        allowFileProtocol: source.local,
        env: credentialEnvironment(source.credentials),
      },
    );
  } finally {
    watch.stop();
  }
}

/** The commit `ref` names in `repository`, checked to be a commit id before it goes on a command line. */
export async function commitAt(repository: GitTarget, ref: string, opts: CheckoutOptions): Promise<string> {
  const commit = (await runGit(repository, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], opts)).trim();
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`unexpected commit id from git: ${commit.slice(0, 80)}`);
  return commit;
}

/**
 * FollowSyncTooLargeError when checking `commit` out would write more than `maxBytes` (the
 * `setting` that says so), or more than MAX_TREE_FILES files: measured before anything is written.
 */
export async function refuseLargeTree(
  repository: GitTarget,
  commit: string,
  maxBytes: number,
  setting: string,
): Promise<void> {
  const size = await measureTree(repository, commit, maxBytes);
  if (!size.over) return;
  const what =
    size.files > MAX_TREE_FILES
      ? `more than ${MAX_TREE_FILES} files`
      : `files of more than ${maxBytes} bytes in all (${setting})`;
  const largest = size.largest
    ? `; the largest seen is ${printable(size.largest.path)} (${size.largest.bytes} bytes)`
    : '';
  throw new FollowSyncTooLargeError(`commit ${commit.slice(0, 12)} was not checked out: it holds ${what}${largest}`);
}

/**
 * Measures the packs a running fetch is writing (`objects/pack/tmp_pack_*`) and aborts the fetch
 * once they pass `maxBytes` (the `setting` that says so); what it wrote is removed.
 */
function watchIncomingPack(gitDir: string, maxBytes: number, setting: string): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const packDir = path.join(gitDir, 'objects', 'pack');
  const incoming = () => {
    try {
      return fs.readdirSync(packDir).filter((name) => name.startsWith('tmp_pack_') || name.startsWith('tmp_idx_'));
    } catch {
      return [];
    }
  };
  const timer = setInterval(() => {
    let bytes = 0;
    for (const name of incoming()) {
      try {
        bytes += fs.statSync(path.join(packDir, name)).size;
      } catch {
        // finished or removed meanwhile
      }
    }
    if (bytes > maxBytes) {
      controller.abort(
        new FollowSyncTooLargeError(
          `the fetch was stopped: it had received more than ${maxBytes} bytes (${setting}); nothing new was checked out`,
        ),
      );
    }
  }, FETCH_WATCH_MS);
  return {
    signal: controller.signal,
    stop() {
      clearInterval(timer);
      if (controller.signal.aborted)
        for (const name of incoming()) fs.rmSync(path.join(packDir, name), { force: true });
    },
  };
}
