// The server's own working tree of the followed branch, kept in the state dir. A sync fetches the
// branch by URL into a private ref (forced: a force-push moves it back as well as forward), then
// checks that commit out and removes anything else: the tree is exactly the remote branch, never
// a merge. Full history is fetched, not a shallow clone: article dates come from it.
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../config/state-dir.ts';
import { runGit } from './git-command.ts';
import type { FollowSource } from './follow-source.ts';

/** Where the fetched branch is kept in the checkout; not a branch, so nothing checks it out by name. */
const FOLLOWED_REF = 'refs/quire/followed';

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
}

export function followCheckoutDir(stateDir: string): string {
  return path.join(stateDir, 'follow', 'checkout');
}

export function createCheckout(dir: string, source: FollowSource, opts: { timeoutMs?: number } = {}): Checkout {
  const git = (args: string[]) => runGit(dir, args, opts);
  const head = async () => {
    if (!fs.existsSync(path.join(dir, '.git'))) return null;
    return (await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}']).catch(() => '')).trim() || null;
  };
  return {
    dir,
    head,
    async sync() {
      // git writes with the umask (0644): the folder, its user's only, keeps drafts from others.
      makePrivateDir(dir);
      if (!fs.existsSync(path.join(dir, '.git'))) {
        await git(['init', '-q']);
      }
      const previous = await head();
      await git(['fetch', '-q', '--no-tags', '--no-recurse-submodules', '--', source.url, `+refs/heads/${source.branch}:${FOLLOWED_REF}`]);
      const commit = (await git(['rev-parse', '--verify', '-q', `${FOLLOWED_REF}^{commit}`])).trim();
      if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`unexpected commit id from git: ${commit.slice(0, 80)}`);
      await git(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--force', '--detach', commit, '--']);
      await git(['clean', '-q', '-ffdx']);
      return { commit, previous };
    },
  };
}
