// The spare: the tree a build replaced, kept in the work folder beside dist/ (work-dir.ts) with
// the list of files that differ between it and the dist/ that replaced it. The next build starts
// from the spare and brings only those files up to date (links to dist/'s), instead of linking
// every file of dist/ into a new tree and deleting the replaced one: at 10,000 articles that was
// 20,000 links and 20,000 deletions per build, whatever changed. Without a usable spare (first
// build, another build took it, too much changed) the build links the whole tree (export-writer.ts).
import fs from 'node:fs';
import path from 'node:path';
import { isMissingFile } from '../../problems/problem.ts';
import { fileIn } from '../export-files.ts';
import { MANIFEST_FILE } from '../layout.ts';
import type { Manifest } from '../manifest.ts';
import { linkOrCopy, removeEmptyDirs } from './tree-edits.ts';
import { SPARE_CHANGES_FILE, sparePath } from './work-dir.ts';

/** What the spare holds beside its files (SPARE_CHANGES_FILE). */
export interface SpareChanges {
  /** buildId of the dist/ the spare was replaced by. */
  to: string;
  /** Files written or removed by that build, relative to the tree. */
  changed: string[];
}

/** A spare with its list of changes is there: a build may start from it rather than link dist/. */
export const hasSpare = (distDir: string): boolean => fs.existsSync(path.join(sparePath(distDir), SPARE_CHANGES_FILE));

/**
 * Takes the spare as the new tree (renamed to `tmp`) and brings it up to dist/ as `previous`
 * describes it: each file the last build changed is replaced by a link to dist/'s, or removed.
 * False when there is no spare, it does not lead to this dist/, or too much changed for
 * patching to beat linking the whole tree; the spare is then left for the commit to replace.
 */
export function claimSpare(distDir: string, tmp: string, previous: Manifest): boolean {
  const spare = sparePath(distDir);
  let changes: SpareChanges;
  try {
    changes = JSON.parse(fs.readFileSync(path.join(spare, SPARE_CHANGES_FILE), 'utf8')) as SpareChanges;
  } catch {
    return false;
  }
  // About three files per article (body and its two compressed variants).
  const fileCount = Object.values(previous.sites).reduce((n, s) => n + 3 * Object.keys(s.articles).length + 1, 0);
  // Patching costs a few calls per changed file, linking one per file of the tree.
  const worthIt = Array.isArray(changes.changed) && changes.changed.length <= Math.max(64, fileCount / 4);
  if (changes.to !== previous.buildId || !worthIt) return false;
  try {
    fs.renameSync(spare, tmp); // atomic: of two builds, one gets it
  } catch {
    return false;
  }
  // From here the tree is this build's: if it dies, the tree is a leftover like any other.
  fs.rmSync(fileIn(tmp, MANIFEST_FILE), { force: true });
  fs.rmSync(path.join(tmp, SPARE_CHANGES_FILE), { force: true });
  const emptied = new Set<string>();
  for (const rel of new Set(changes.changed)) {
    const file = fileIn(tmp, rel);
    try {
      fs.unlinkSync(file);
    } catch (err) {
      if (!isMissingFile(err)) throw err;
    }
    if (!linkOrCopy(fileIn(distDir, rel), file)) emptied.add(path.dirname(rel));
  }
  removeEmptyDirs(tmp, emptied);
  return true;
}

/**
 * After a swap: the replaced tree (`replaced`, out of dist/'s place) becomes the spare, with the
 * files the build changed. Nothing refers to it now; the next build takes it. Returns the trees
 * to delete: an older spare in the way, or the replaced tree when it could not be kept (another
 * build's spare got there first).
 */
export function keepAsSpare(distDir: string, replaced: string, changes: SpareChanges): string[] {
  const spare = sparePath(distDir);
  const doomed: string[] = [];
  try {
    fs.writeFileSync(path.join(replaced, SPARE_CHANGES_FILE), JSON.stringify(changes));
    try {
      fs.renameSync(replaced, spare);
    } catch {
      // An older spare this build could not use is in the way: it goes, under a name the
      // sweep of leftovers knows, and this tree takes its place.
      const stale = `${replaced}0`;
      fs.renameSync(spare, stale);
      doomed.push(stale);
      fs.renameSync(replaced, spare);
    }
  } catch {
    doomed.push(replaced);
  }
  return doomed;
}
