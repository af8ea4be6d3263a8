// Where a build keeps its byproducts: one folder beside dist/, `.<dist>.work/` (`.dist.work/`),
// holding the tree being written (`tmp-<pid>-<hex>`), the tree being replaced (`old-<pid>-<hex>`)
// and the spare (`spare`). Beside dist/, so that every swap is a rename on one filesystem (the
// state dir may be elsewhere, a CI cache mount); with a `.gitignore` of `*` in it, so git ignores
// it in a content repository without being told.
//
// Swapping a folder takes two renames (dist/ away, the new tree in): a build killed between them
// leaves no dist/. The next build (and `quire start`, whose first step is a build) puts the last
// complete tree back before anything else reads dist/: see recoverInterruptedSwap.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessRunning } from '../../host/processes.ts';
import { MANIFEST_FILE } from '../layout.ts';
import { fileIn } from '../export-files.ts';
import { isMissingFile } from '../../problems/problem.ts';

const GITIGNORE = '# Build byproducts of Quire (the tree being written, the spare): never committed.\n*\n';
const TREE_NAME = /^(tmp|old)-(\d+)-[0-9a-f]+$/;

export const workDirOf = (distDir: string): string =>
  path.join(path.dirname(distDir), `.${path.basename(distDir)}.work`);
export const sparePath = (distDir: string): string => path.join(workDirOf(distDir), 'spare');

/** Names for a build's new tree and for the tree it replaces, in the work folder (made here). */
export function newTreePaths(distDir: string): { tmp: string; old: string } {
  const work = workDirOf(distDir);
  fs.mkdirSync(work, { recursive: true });
  const ignore = path.join(work, '.gitignore');
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, GITIGNORE);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  return { tmp: path.join(work, `tmp-${tag}`), old: path.join(work, `old-${tag}`) };
}

interface TreeEntry {
  file: string;
  kind: 'tmp' | 'old' | 'spare';
  /** Its build is running now (this process or another): not ours to touch. */
  live: boolean;
}

/** Trees in the work folder, and those older versions of Quire left directly beside dist/. */
function listTrees(distDir: string): TreeEntry[] {
  const trees: TreeEntry[] = [];
  const legacyPrefix = `.${path.basename(distDir)}.`;
  const scan = (dir: string, prefix: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (err) {
      if (isMissingFile(err)) return;
      throw err;
    }
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      if (rest === 'spare') {
        trees.push({ file: path.join(dir, name), kind: 'spare', live: false });
        continue;
      }
      const m = TREE_NAME.exec(rest);
      if (m) trees.push({ file: path.join(dir, name), kind: m[1] as 'tmp' | 'old', live: isRunning(Number(m[2])) });
    }
  };
  scan(workDirOf(distDir), '');
  scan(path.dirname(distDir), legacyPrefix);
  return trees;
}

/**
 * Trees killed or finished builds left behind, to delete: not those of a build running now, and
 * not the spare in the work folder (the next build's start). A spare of an older version, kept
 * directly beside dist/, goes too.
 */
export function findLeftovers(distDir: string): string[] {
  const spare = sparePath(distDir);
  return listTrees(distDir)
    .filter((t) => !t.live && t.file !== spare)
    .map((t) => t.file);
}

/**
 * When dist/ is missing because a build was killed between its two renames, puts the last
 * complete tree back: the tree that build was replacing (what was served), else the new tree it
 * had finished (its manifest is written last), else the spare (the build before). Returns the
 * folder it was restored from, or null when dist/ is there or there is nothing to restore.
 */
export function recoverInterruptedSwap(distDir: string): string | null {
  if (fs.existsSync(distDir)) return null;
  const complete = listTrees(distDir).filter((t) => !t.live && fs.existsSync(fileIn(t.file, MANIFEST_FILE)));
  const rank = { old: 0, tmp: 1, spare: 2 } as const;
  const newestFirst = (t: TreeEntry) => -fs.statSync(fileIn(t.file, MANIFEST_FILE)).mtimeMs;
  complete.sort((a, b) => rank[a.kind] - rank[b.kind] || newestFirst(a) - newestFirst(b));
  const pick = complete[0];
  if (!pick) return null;
  try {
    fs.renameSync(pick.file, distDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Another process restored it first: dist/ is there now, or the tree is gone from its place.
    // Only ENOENT: ENOTDIR here means a file stands where dist/ goes, a fault to report.
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return null;
    throw err;
  }
  if (pick.kind === 'spare') fs.rmSync(path.join(distDir, SPARE_CHANGES_FILE), { force: true });
  return pick.file;
}

/** In the spare: which files differ between it and the dist/ it was replaced by. */
export const SPARE_CHANGES_FILE = '.quire-spare.json';

function isRunning(pid: number): boolean {
  return pid === process.pid || isProcessRunning(pid);
}
