// Where builds keep their preview trees (preview-tree.ts): `<state dir>/preview/<buildId>/` (the
// root: previewRootOf, src/config/state-layout.ts), one
// per build. In the state dir, not in or beside dist/: dist/ is the public export, and the state
// dir is private (mode 0700, files 0600; its render cache already holds drafts' output) and is
// never published. Trees link only to each other, never to dist/, so the state dir may be on
// another filesystem than dist/ (a CI cache).
//
// A build writes its tree under a work name (`.tmp-<pid>-<hex>`: a build id has no dot) and
// renames it to its build id before dist/ is swapped, so every dist/ a reader can see has its
// drafts in place. After the swap it deletes the trees no dist/ names any more (sweepPreviewTrees).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessRunning } from '../host/processes.ts';
import { isMissingFile } from '../problems/problem.ts';
import { parsePreviewManifest, PREVIEW_MANIFEST_FILE, type PreviewManifest } from './preview-tree.ts';

/** Preview trees hold drafts: readable by the user running Quire only. */
export const PREVIEW_DIR_MODE = 0o700;
export const PREVIEW_FILE_MODE = 0o600;

/** A build id as the build makes it (content-hash.ts: base64url), the only folder name a tree has. */
const BUILD_ID = /^[A-Za-z0-9_-]+$/;
const WORK_NAME = /^\.(tmp|old)-(\d+)-[0-9a-f]+$/;

/** The preview tree of build `buildId`; throws on an id a build could not have made (it becomes a path). */
export function previewTreeOf(root: string, buildId: string): string {
  if (!BUILD_ID.test(buildId)) throw new Error(`"${buildId}" is not a build id`);
  return path.join(root, buildId);
}

/** A new work name in `root` (made, with the state dir, if missing), for a tree being written or one put aside. */
export function workTreePath(root: string, kind: 'tmp' | 'old'): string {
  fs.mkdirSync(root, { recursive: true, mode: PREVIEW_DIR_MODE });
  return path.join(root, `.${kind}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** The manifest of build `buildId`'s preview tree; null when there is none (or not one this version reads). */
export function readPreviewManifest(root: string, buildId: string): PreviewManifest | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(previewTreeOf(root, buildId), PREVIEW_MANIFEST_FILE), 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return null;
    throw err;
  }
  const manifest = parsePreviewManifest(text);
  return manifest?.buildId === buildId ? manifest : null;
}

/** readPreviewManifest for a server: throws, naming the folder, when the build has no preview tree. */
export async function loadPreviewManifest(root: string, buildId: string): Promise<PreviewManifest> {
  const tree = previewTreeOf(root, buildId);
  let text: string | null = null;
  try {
    text = await fs.promises.readFile(path.join(tree, PREVIEW_MANIFEST_FILE), 'utf8');
  } catch (err) {
    if (!isMissingFile(err)) throw err;
  }
  const manifest = text === null ? null : parsePreviewManifest(text);
  if (manifest?.buildId !== buildId)
    throw new Error(`build ${buildId} has no preview tree in ${root} (the next build writes it)`);
  return manifest;
}

/**
 * After a swap: deletes the preview trees no dist/ names any more. Kept: those in `keep` (the
 * build now in dist/, the one it replaced, which readers may still be on), those of trees
 * finished since `since` (a build running beside this one may be about to swap its tree in, or
 * has just done so), and the work trees of builds still running.
 */
export function sweepPreviewTrees(root: string, keep: ReadonlySet<string>, since: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch (err) {
    if (isMissingFile(err)) return;
    throw err;
  }
  for (const name of names) {
    if (keep.has(name)) continue;
    const work = WORK_NAME.exec(name);
    if (work) {
      const pid = Number(work[2]);
      if (pid !== process.pid && !isProcessRunning(pid)) removeTree(path.join(root, name));
      continue;
    }
    if (!BUILD_ID.test(name)) continue; // not a tree of ours
    // Slack for filesystems whose times are coarse (whole or even seconds).
    if (finishedAt(path.join(root, name)) >= since - 2_000) continue;
    removeTree(path.join(root, name));
  }
}

/** When a tree's manifest was written (the last thing written to it); 0 when it has none. */
function finishedAt(tree: string): number {
  try {
    return fs.statSync(path.join(tree, PREVIEW_MANIFEST_FILE)).mtimeMs;
  } catch {
    return 0;
  }
}

/** Deleted here, not on the build's helper thread: a tree holds drafts only, a few files beside a site's articles. */
const removeTree = (tree: string): void => fs.rmSync(tree, { recursive: true, force: true });
