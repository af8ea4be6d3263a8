// How much checking out a commit would write: the sizes of its files, read from git's tree
// listing as it comes (a tree of a million files is never held whole) and stopped once it is
// known to be over the bound.
import { GIT_TIMEOUT_MS, GitCommandError, lastLines, spawnGit, type GitTarget } from '../git/git-runner.ts';

export interface TreeSize {
  /** Bytes of the files counted (all of them unless `over`). */
  bytes: number;
  files: number;
  /** More than the bound: the listing was stopped there. */
  over: boolean;
  largest: { path: string; bytes: number } | null;
}

/** Files in one tree at most, whatever their size: each is a file to write and to walk. */
export const MAX_TREE_FILES = 1_000_000;

export function measureTree(
  repository: GitTarget,
  commit: string,
  maxBytes: number,
  opts: { timeoutMs?: number } = {},
): Promise<TreeSize> {
  const size: TreeSize = { bytes: 0, files: 0, over: false, largest: null };
  const child = spawnGit(repository, ['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
  let stderr = '';
  let rest = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? GIT_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    const stop = () => {
      size.over = true;
      child.kill('SIGKILL');
    };
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      if (size.over) return;
      const records = (rest + chunk).split('\0');
      rest = records.pop()!;
      for (const record of records) {
        // `<mode> <type> <object> <size>\t<path>`; the size is `-` for what is not a blob.
        const tab = record.indexOf('\t');
        const fields = record.slice(0, tab).split(/ +/);
        const bytes = Number(fields[3]);
        if (fields[1] !== 'blob' || !Number.isFinite(bytes)) continue;
        size.files++;
        size.bytes += bytes;
        if (!size.largest || bytes > size.largest.bytes) size.largest = { path: record.slice(tab + 1), bytes };
        if (size.bytes > maxBytes || size.files > MAX_TREE_FILES) return stop();
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new GitCommandError(`git ls-tree could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (size.over) return resolve(size);
      if (code === 0) return resolve(size);
      reject(
        new GitCommandError(
          signal === 'SIGKILL' ? 'git ls-tree timed out' : `git ls-tree failed: ${lastLines(stderr)}`,
        ),
      );
    });
  });
}
