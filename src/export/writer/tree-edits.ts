// Small edits of a tree being written beside dist/ (export-writer.ts, spare-tree.ts): a file
// linked from another tree, files removed with the folders they leave empty, bytes written whole.
import fs from 'node:fs';
import path from 'node:path';
import { isMissingFile } from '../../problems/problem.ts';
import { fileIn } from '../export-files.ts';

/** Links `source` to `target` (copies where links are refused); false when `source` is absent. */
export function linkOrCopy(source: string, target: string): boolean {
  try {
    fs.linkSync(source, target);
  } catch (err) {
    if (isMissingFile(err)) {
      if (!fs.existsSync(source)) return false; // removed by the last build: stays removed
      fs.mkdirSync(path.dirname(target), { recursive: true });
      return linkOrCopy(source, target);
    }
    fs.copyFileSync(source, target);
  }
  return true;
}

/** Deletes files of the tree at `root` (one already gone is fine), and the folders they leave empty. */
export function removeFiles(root: string, rels: readonly string[]): void {
  const emptied = new Set<string>();
  for (const rel of rels) {
    try {
      fs.unlinkSync(fileIn(root, rel));
    } catch (err) {
      if (!isMissingFile(err)) throw err;
    }
    emptied.add(path.dirname(rel));
  }
  removeEmptyDirs(root, emptied);
}

/** Removes each of `rels` and its parents under `root` while they are empty. */
export function removeEmptyDirs(root: string, rels: Iterable<string>): void {
  for (const rel of [...rels].sort().reverse()) {
    for (let dir = rel; dir && dir !== '.'; dir = path.dirname(dir)) {
      try {
        fs.rmdirSync(path.join(root, dir));
      } catch {
        break; // not empty (or gone): its parents are not empty either
      }
    }
  }
}

/** Writes `parts` into `file` (made or emptied), every byte, going on after a short write. */
export function writeFileParts(file: string, parts: readonly Uint8Array[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    // Several calls: one writev takes at most IOV_MAX (1,024) pieces.
    for (let i = 0; i < parts.length; i += 1024) writeAll(fd, parts.slice(i, i + 1024));
  } finally {
    fs.closeSync(fd);
  }
}

function writeAll(fd: number, parts: Uint8Array[]): void {
  let rest = parts;
  while (rest.length) {
    let written = fs.writevSync(fd, rest);
    let i = 0;
    while (i < rest.length && written >= rest[i]!.byteLength) written -= rest[i++]!.byteLength;
    rest = rest.slice(i);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}
