// Writes a build's preview tree (preview-tree.ts) as the build goes, under a work name in the
// preview root (preview-trees.ts), and puts it in place under the build id before dist/ is
// swapped. Files of drafts that did not change are hard links to the previous tree's (the one
// the current dist/ names): all trees are in one folder, so the links never cross filesystems.
// Folders are made 0700 and files 0600: they hold unpublished work.
import fs from 'node:fs';
import path from 'node:path';
import { previewManifestJson, previewTreeFiles, PREVIEW_MANIFEST_FILE, type PreviewManifest } from '../preview-tree.ts';
import { PREVIEW_DIR_MODE, PREVIEW_FILE_MODE, previewTreeOf, workTreePath } from '../preview-trees.ts';
import { isMissingFile } from '../../problems/problem.ts';

export class PreviewWriter {
  /** When the build began writing: trees finished since are another build's (sweepPreviewTrees). */
  readonly startedAt = Date.now();
  private readonly tmp: string;
  private readonly dirs = new Set<string>();
  /** Files written or copied by this build; the rest of the tree is taken over from the previous one. */
  private readonly placed = new Set<string>();
  private readonly previousTree: string | null;
  private done = false;

  /** `previous`: the manifest of the preview tree the current dist/ names, when there is one. */
  constructor(
    private readonly root: string,
    previous: PreviewManifest | null,
  ) {
    this.tmp = workTreePath(root, 'tmp');
    fs.mkdirSync(this.tmp, { mode: PREVIEW_DIR_MODE });
    this.previousTree = previous ? previewTreeOf(root, previous.buildId) : null;
  }

  private target(rel: string): string {
    this.placed.add(rel);
    const file = path.join(this.tmp, rel);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true, mode: PREVIEW_DIR_MODE });
      this.dirs.add(dir);
    }
    return file;
  }

  write(rel: string, data: string | Uint8Array): void {
    fs.writeFileSync(this.target(rel), data, { mode: PREVIEW_FILE_MODE });
  }

  /** Copies `source` to `rel`, a name that stands for its content (a hash in it): the previous tree's file of that name is linked instead. */
  copyNamedByContent(rel: string, source: string): void {
    const file = this.target(rel);
    if (this.previousTree && linkFrom(path.join(this.previousTree, rel), file)) return;
    fs.copyFileSync(source, file, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(file, PREVIEW_FILE_MODE); // a copy takes the source's mode
  }

  /**
   * Completes the tree `manifest` describes (what this build did not write is taken over from the
   * previous tree), writes its manifest last and puts it in place as the tree of its build id.
   * Returns that folder.
   */
  commit(manifest: PreviewManifest): string {
    for (const rel of previewTreeFiles(manifest)) {
      if (this.placed.has(rel)) continue;
      const from = this.previousTree && path.join(this.previousTree, rel);
      if (!from || !linkFrom(from, this.target(rel)))
        throw new Error(`the preview tree of the current build changed during the build: ${rel} is gone`);
    }
    fs.writeFileSync(path.join(this.tmp, PREVIEW_MANIFEST_FILE), previewManifestJson(manifest), {
      mode: PREVIEW_FILE_MODE,
    });
    const tree = previewTreeOf(this.root, manifest.buildId);
    try {
      fs.renameSync(this.tmp, tree);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      // A tree of this build id is there already (a build of the same inputs stopped before its
      // swap, or one this build rewrites because it could not be read): this one replaces it.
      const aside = workTreePath(this.root, 'old');
      fs.renameSync(tree, aside);
      fs.renameSync(this.tmp, tree);
      fs.rmSync(aside, { recursive: true, force: true });
    }
    this.done = true;
    return tree;
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** Links `source` to `target` (copies where links are refused); false when `source` is absent. */
function linkFrom(source: string, target: string): boolean {
  try {
    fs.linkSync(source, target);
  } catch (err) {
    if (isMissingFile(err)) return false;
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err;
    fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(target, PREVIEW_FILE_MODE);
  }
  return true;
}
