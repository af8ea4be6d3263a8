// Writes a new dist/ into a temporary folder beside it as the build goes, then swaps it in
// (swap.ts): a reader sees the old tree or the new one, and a failed build leaves the old one
// untouched. Files that did not change are hard links to the current dist/'s: the new tree
// starts from the spare, the tree the last build replaced, brought up to dist/ (spare-tree.ts),
// or else from every file of dist/ linked on the build's helper thread (build-helper.ts).
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, treeFiles } from '../layout.ts';
import { fileIn, writeManifest } from '../export-files.ts';
import type { Manifest } from '../manifest.ts';
import { helperSlot, type HelperSlot } from './build-helper.ts';
import { removedFiles } from './removed-files.ts';
import { claimSpare, keepAsSpare } from './spare-tree.ts';
import { swapIn } from './swap.ts';
import { removeFiles, writeFileParts } from './tree-edits.ts';
import { newTreePaths } from './work-dir.ts';

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
  constructor(
    distDir: string,
    helper: HelperSlot = helperSlot(null),
    previous: Manifest | null = null,
    swapPauseFile: string | null = null,
  ) {
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
    this.place(rel, (file) => writeFileParts(file, parts));
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
    if (!this.linking && !this.patching) {
      make(file);
      return;
    }
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
    if (this.patching) this.remove(removedFiles(this.patching, manifest));
    else if (this.linking) this.completeLinkedTree(await this.linking, manifest);
    else {
      const missing = treeFiles(manifest).filter((rel) => !this.placed.has(rel));
      if (missing.length)
        throw new Error(
          `dist/ has no previous build to take ${missing.length} unchanged files from (first: ${missing[0]})`,
        );
    }
    writeManifest(this.tmp, manifest);
    const hadOld = swapIn(this.tmp, this.distDir, this.old, this.swapPauseFile);
    this.done = true;
    if (hadOld) this.keepReplacedTree(manifest);
  }

  /**
   * The replaced tree becomes the spare. If it cannot (another build's spare is there), what is
   * to go is deleted by the helper without holding up the build or the process's exit (the next
   * build sweeps what is left).
   */
  private keepReplacedTree(manifest: Manifest): void {
    const doomed = keepAsSpare(this.distDir, this.old, { to: manifest.buildId, changed: this.changed });
    if (!doomed.length) return;
    this.helper
      .get()
      .remove(doomed, false)
      .catch((err: Error) => {
        process.emitWarning(`could not delete a replaced build beside ${this.distDir}: ${err.message}`);
      });
  }

  /** Drops what the new tree must not hold: files of the old one that this build did not produce. */
  private completeLinkedTree(linked: string[], manifest: Manifest): void {
    const have = new Set(linked);
    const expected = treeFiles(manifest);
    const missing = expected.filter((rel) => !have.has(rel) && !this.placed.has(rel));
    if (missing.length)
      throw new Error(
        `dist/ changed during the build: ${missing.length} unchanged files are gone (first: ${missing[0]})`,
      );
    const keep = new Set(expected);
    this.remove(linked.filter((rel) => !keep.has(rel)));
  }

  /** Deletes files of the new tree (and the folders they leave empty); notes them as changed. */
  private remove(rels: string[]): void {
    removeFiles(this.tmp, rels);
    this.changed.push(...rels);
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.helper.current()?.terminate(); // stops linking into the tree removed next
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}
