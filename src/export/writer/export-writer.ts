// Writes a new dist/ into a temporary sibling folder as the build goes, then swaps it in with
// renames: a reader sees the old tree or the new one, and a failed build leaves the old one
// untouched. Files that did not change are hard links to the current dist/'s.
//
// The tree a build replaces is kept as the spare (in the work folder beside dist/, see
// work-dir.ts), with the list of
// files that differ between it and dist/. The next build starts from the spare and brings only
// those files up to date (links to dist/'s), instead of linking every file of dist/ into a new
// tree and deleting the replaced one: at 10,000 articles that was 20,000 links and 20,000
// deletions per build, whatever changed. Without a usable spare (first build, another build took
// it, too much changed) the build links the whole tree as before.
import fs from 'node:fs';
import path from 'node:path';
import { articleFile, articleFiles, encodedFile, imageFile, listFile, MANIFEST_FILE, siteFiles, treeFiles, type ContentCoding } from '../layout.ts';
import { fileIn, writeManifest } from '../export-files.ts';
import type { Manifest } from '../manifest.ts';
import { findLeftovers, newTreePaths, SPARE_CHANGES_FILE, sparePath } from './work-dir.ts';
import { startTreeHelper, type TreeHelper } from './tree-helper.ts';
import { isMissingFile } from '../../problems/problem.ts';

interface SpareChanges {
  /** buildId of the dist/ the spare was replaced by. */
  to: string;
  /** Files written or removed by that build, relative to the tree. */
  changed: string[];
}

export class ExportWriter {
  readonly distDir: string;
  private readonly tmp: string;
  private readonly old: string;
  private readonly dirs = new Set<string>();
  /** Files written or copied by this build. The rest of the new tree is taken over from dist/. */
  private readonly placed = new Set<string>();
  /** Files this build wrote or removed: what the replaced tree, kept as the spare, lacks. */
  private readonly changed: string[] = [];
  private readonly helper: HelperSlot;
  /** The current dist/ being linked into the new tree on the helper thread, when there is one. */
  private readonly linking: Promise<string[]> | null;
  /** The tree dist/ holds now, when the new tree starts from the spare brought up to it. */
  private readonly patching: Manifest | null;
  private writes = 0;
  private done = false;
  /** Tests only (QUIRE_TEST_SWAP_PAUSE_FILE): where to signal, then wait, between the two renames. */
  private readonly swapPauseFile: string | null;

  /**
   * `helper`: from startBuildHelper, started there or here when there is work for it.
   * `previous`: the manifest dist/ holds now; with it, a spare made by the build that wrote dist/
   * is reused. Without a previous build, every file is written.
   */
  constructor(distDir: string, helper: HelperSlot = helperSlot(null), previous: Manifest | null = null, swapPauseFile: string | null = null) {
    this.distDir = distDir;
    this.swapPauseFile = swapPauseFile;
    ({ tmp: this.tmp, old: this.old } = newTreePaths(distDir));
    this.helper = helper;
    this.patching = previous && claimSpare(distDir, this.tmp, previous) ? previous : null;
    if (this.patching) {
      this.linking = null;
      return;
    }
    fs.mkdirSync(this.tmp, { recursive: true });
    // Most of a rebuild's output is the previous output: link all of it now, while the build
    // works out what changed; what the build writes replaces its link, the rest is dropped at commit.
    this.linking = fs.existsSync(fileIn(distDir, MANIFEST_FILE)) ? this.helper.get().linkTree(distDir, this.tmp) : null;
    this.linking?.catch(() => {}); // awaited at commit or abort
  }

  private target(rel: string): string {
    this.placed.add(rel);
    const file = fileIn(this.tmp, rel);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    return file;
  }

  write(rel: string, data: string | Uint8Array): void {
    this.place(rel, (file) => fs.writeFileSync(file, data));
  }

  /** write() of the pieces joined. */
  writeParts(rel: string, parts: Uint8Array[]): void {
    this.place(rel, (file) => {
      const fd = fs.openSync(file, 'w');
      try {
        // Several calls: one writev takes at most IOV_MAX (1,024) pieces.
        for (let i = 0; i < parts.length; i += 1024) writeAll(fd, parts.slice(i, i + 1024));
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  /** Copies `source` to `rel`, a name that stands for its content (a hash in it): one already there is kept. */
  copyNamedByContent(rel: string, source: string): void {
    if (this.patching && fs.existsSync(fileIn(this.tmp, rel))) {
      this.placed.add(rel);
      return;
    }
    this.place(rel, (file) => fs.copyFileSync(source, file));
  }

  private place(rel: string, make: (file: string) => void): void {
    const file = this.target(rel);
    this.changed.push(rel);
    if (!this.linking && !this.patching) return make(file);
    // The file here may be a link to one of dist/'s: writing into it would change the tree being
    // served. A new file renamed over the link leaves the other alone.
    const part = `${file}.${this.writes++}.part`;
    make(part);
    fs.renameSync(part, file);
  }

  /**
   * Completes the tree `manifest` describes (what this build did not write is taken over from
   * dist/), writes the manifest last (its presence marks a complete tree) and swaps it in.
   */
  async commit(manifest: Manifest): Promise<void> {
    if (this.patching) this.dropRemoved(this.patching, manifest);
    else if (this.linking) this.completeLinkedTree(await this.linking, manifest);
    else {
      const missing = treeFiles(manifest).filter((rel) => !this.placed.has(rel));
      if (missing.length) throw new Error(`dist/ has no previous build to take ${missing.length} unchanged files from (first: ${missing[0]})`);
    }
    writeManifest(this.tmp, manifest);
    let hadOld = false;
    try {
      fs.renameSync(this.distDir, this.old);
      hadOld = true;
    } catch (err) {
      if (!isMissingFile(err)) throw err; // no dist/ yet
    }
    // Between these renames there is no dist/: a build killed here is undone by the next one
    // (recoverInterruptedSwap in work-dir.ts).
    if (this.swapPauseFile) pauseForTest(this.swapPauseFile);
    try {
      fs.renameSync(this.tmp, this.distDir);
    } catch (err) {
      if (hadOld) fs.renameSync(this.old, this.distDir);
      throw err;
    }
    this.done = true;
    if (hadOld) this.keepAsSpare(manifest);
  }

  /**
   * The replaced tree becomes the spare, with the files this build changed. Nothing refers to it
   * now; the next build takes it. If a spare is already there (another build's), the replaced
   * tree is deleted by the helper without holding up the build or the process's exit (the next
   * build sweeps what is left).
   */
  private keepAsSpare(manifest: Manifest): void {
    const spare = sparePath(this.distDir);
    const doomed: string[] = [];
    try {
      const changes: SpareChanges = { to: manifest.buildId, changed: this.changed };
      fs.writeFileSync(path.join(this.old, SPARE_CHANGES_FILE), JSON.stringify(changes));
      try {
        fs.renameSync(this.old, spare);
      } catch {
        // An older spare this build could not use is in the way: it goes, under a name the
        // sweep of leftovers knows, and this tree takes its place.
        const stale = `${this.old}0`;
        fs.renameSync(spare, stale);
        doomed.push(stale);
        fs.renameSync(this.old, spare);
      }
    } catch {
      doomed.push(this.old); // could not be kept (another build's spare got there first)
    }
    if (!doomed.length) return;
    this.helper.get().remove(doomed, false).catch((err: Error) => {
      process.emitWarning(`could not delete a replaced build beside ${this.distDir}: ${err.message}`);
    });
  }

  /** Drops what the new tree must not hold: files of the old one that this build did not produce. */
  private completeLinkedTree(linked: string[], manifest: Manifest): void {
    const have = new Set(linked);
    const expected = treeFiles(manifest);
    const missing = expected.filter((rel) => !have.has(rel) && !this.placed.has(rel));
    if (missing.length) throw new Error(`dist/ changed during the build: ${missing.length} unchanged files are gone (first: ${missing[0]})`);
    const keep = new Set(expected);
    this.removeFiles(linked.filter((rel) => !keep.has(rel)));
  }

  /**
   * The files of `previous` (the tree patched from the spare) that `next` no longer has, found
   * by comparing the two manifests' sites, slugs and image names: no path is built for what stays.
   */
  private dropRemoved(previous: Manifest, next: Manifest): void {
    const gone: string[] = [];
    for (const [id, site] of Object.entries(previous.sites)) {
      const now = Object.hasOwn(next.sites, id) ? next.sites[id]! : null;
      for (const [slug, entry] of Object.entries(site.articles)) {
        const kept = now && Object.hasOwn(now.articles, slug) ? now.articles[slug]! : null;
        if (!kept) gone.push(...articleFiles(id, slug, entry.encodings));
        else gone.push(...encodedGone(articleFile(id, slug), entry.encodings, kept.encodings));
      }
      const images = new Set(now ? Object.values(now.images) : []);
      for (const name of Object.values(site.images)) if (!images.has(name)) gone.push(imageFile(id, name));
      if (!now) gone.push(...siteFiles(id, site.listEncodings));
      else gone.push(...encodedGone(listFile(id), site.listEncodings, now.listEncodings));
    }
    this.removeFiles(gone);
  }

  /** Deletes files of the new tree, and the folders they leave empty; notes them as changed. */
  private removeFiles(rels: string[]): void {
    const emptied = new Set<string>();
    for (const rel of rels) {
      try {
        fs.unlinkSync(fileIn(this.tmp, rel));
      } catch (err) {
        if (!isMissingFile(err)) throw err;
      }
      this.changed.push(rel);
      emptied.add(path.dirname(rel));
    }
    for (const dir of [...emptied].sort().reverse()) removeEmptyDirs(this.tmp, dir);
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.helper.current()?.terminate(); // stops linking into the tree removed next
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

/**
 * Takes the spare as the new tree (renamed to `tmp`) and brings it up to dist/ as `previous`
 * describes it: each file the last build changed is replaced by a link to dist/'s, or removed.
 * False when there is no spare, it does not lead to this dist/, or too much changed for
 * patching to beat linking the whole tree; the spare is then left for the commit to replace.
 */
function claimSpare(distDir: string, tmp: string, previous: Manifest): boolean {
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
  for (const dir of [...emptied].sort().reverse()) removeEmptyDirs(tmp, dir);
  return true;
}

/** The compressed variants of `key` that a body had (`before`) and no longer has (`after`). */
function encodedGone(key: string, before: readonly ContentCoding[] = [], after: readonly ContentCoding[] = []): string[] {
  return before.filter((c) => !after.includes(c)).map((c) => encodedFile(key, c));
}

/** Signals that the swap is half done and blocks (at most a minute), for a test to kill the process. */
function pauseForTest(signalFile: string): void {
  fs.writeFileSync(signalFile, String(process.pid));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
}

/** Links `source` to `target` (copies where links are refused); false when `source` is absent. */
function linkOrCopy(source: string, target: string): boolean {
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

/** Writes every byte of `parts`, going on after a short write. */
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

/** Removes `rel` and its parents under `root` while they are empty. */
function removeEmptyDirs(root: string, rel: string): void {
  for (let dir = rel; dir && dir !== '.'; dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(path.join(root, dir));
    } catch {
      return; // not empty (or gone): its parents are not empty either
    }
  }
}

/**
 * The helper thread of a build that writes dist/, started as early as possible: it deletes the
 * trees earlier builds left beside dist/ while this one loads content, then links the current
 * dist/ into the new tree when there is no spare to start from (ExportWriter). Null when there is
 * nothing for it to do.
 */
export function startBuildHelper(distDir: string): HelperSlot {
  const leftovers = findLeftovers(distDir);
  const mayLink = fs.existsSync(fileIn(distDir, MANIFEST_FILE)) && !fs.existsSync(path.join(sparePath(distDir), SPARE_CHANGES_FILE));
  if (!leftovers.length && !mayLink) return helperSlot(null);
  const helper = startTreeHelper();
  helper.remove(leftovers, true).catch((err: Error) => process.emitWarning(`could not delete leftover builds: ${err.message}`));
  return helperSlot(helper);
}

/** A build's helper thread, started on first use if it was not at the start. */
export interface HelperSlot {
  get(): TreeHelper;
  /** The helper if it was started. */
  current(): TreeHelper | null;
}

function helperSlot(started: TreeHelper | null): HelperSlot {
  let helper = started;
  return { get: () => (helper ??= startTreeHelper()), current: () => helper };
}
