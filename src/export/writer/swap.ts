// The swap: a complete tree (its manifest written last) takes dist/'s place by two renames, so a
// reader sees the old tree or the new one, never part of either. Between the renames there is
// no dist/: a build killed there is undone by the next one (recoverInterruptedSwap, work-dir.ts).
import fs from 'node:fs';
import { isMissingFile } from '../../problems/problem.ts';

/**
 * Puts `tree` in `distDir`'s place; the tree that was there goes to `replaced`. True when there
 * was one. A failed second rename puts the old tree back. `pauseFile`: tests only (see below).
 */
export function swapIn(tree: string, distDir: string, replaced: string, pauseFile: string | null): boolean {
  let hadOld = false;
  try {
    fs.renameSync(distDir, replaced);
    hadOld = true;
  } catch (err) {
    if (!isMissingFile(err)) throw err; // no dist/ yet
  }
  if (pauseFile) pauseForTest(pauseFile);
  try {
    fs.renameSync(tree, distDir);
  } catch (err) {
    if (hadOld) fs.renameSync(replaced, distDir);
    throw err;
  }
  return hadOld;
}

/** QUIRE_TEST_SWAP_PAUSE_FILE: signals that the swap is half done and blocks (at most a minute), for a test to kill the process. */
function pauseForTest(signalFile: string): void {
  fs.writeFileSync(signalFile, String(process.pid));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}
