// The helper thread of a build that writes dist/ (tree-helper.ts), started as early as possible:
// it deletes the trees earlier builds left beside dist/ while this one loads content, then links
// the current dist/ into the new tree when there is no spare to start from (export-writer.ts).
import fs from 'node:fs';
import { fileIn } from '../export-files.ts';
import { MANIFEST_FILE } from '../layout.ts';
import { hasSpare } from './spare-tree.ts';
import { startTreeHelper, type TreeHelper } from './tree-helper.ts';
import { findLeftovers } from './work-dir.ts';

/** A build's helper thread, started on first use if it was not at the start. */
export interface HelperSlot {
  get(): TreeHelper;
  /** The helper if it was started. */
  current(): TreeHelper | null;
}

/** The slot of a build's helper, started now only when there is work for it already. */
export function startBuildHelper(distDir: string): HelperSlot {
  const leftovers = findLeftovers(distDir);
  const mayLink = fs.existsSync(fileIn(distDir, MANIFEST_FILE)) && !hasSpare(distDir);
  if (!leftovers.length && !mayLink) return helperSlot(null);
  const helper = startTreeHelper();
  helper
    .remove(leftovers, true)
    .catch((err: Error) => process.emitWarning(`could not delete leftover builds: ${err.message}`));
  return helperSlot(helper);
}

export function helperSlot(started: TreeHelper | null): HelperSlot {
  let helper = started;
  return { get: () => (helper ??= startTreeHelper()), current: () => helper };
}
