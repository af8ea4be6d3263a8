// The commit a publish is made from, and what changed in a site's folder since the last one.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function git(cwd: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch {
    return null;
  }
}

export interface Revision {
  /** HEAD, or null outside a git repository (or before the first commit). */
  commit: string | null;
  /** Uncommitted changes under the content dir: published from disk, not from the commit. */
  dirty: boolean;
}

export async function readRevision(contentDir: string): Promise<Revision> {
  const commit = (await git(contentDir, ['rev-parse', '--verify', '-q', 'HEAD']))?.trim() || null;
  if (!commit) return { commit: null, dirty: false };
  const status = await git(contentDir, ['status', '--porcelain', '--', '.']);
  return { commit, dirty: !!status?.trim() };
}

/** Files of `dir` that git sees changed between two commits (renames count once), or null. */
export async function changedFilesSince(dir: string, from: string, to: string): Promise<number | null> {
  const out = await git(dir, ['diff', '--name-only', '-M', `${from}..${to}`, '--', '.']);
  return out === null ? null : out.split('\n').filter(Boolean).length;
}
