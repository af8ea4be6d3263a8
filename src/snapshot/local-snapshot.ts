// The SnapshotReader of a dist/ folder on the local disk: holds the build in memory as ready-to-send
// bytes, and swaps in a new build when the manifest changes on disk, without a restart. Drafts
// come from the preview tree of the build id the manifest names (preview-trees.ts), read when a
// preview asks for them.
import fs from 'node:fs';
import path from 'node:path';
import {
  assembleSnapshot,
  imageKey,
  readDraftFiles,
  type SnapshotReader,
  type Snapshot,
  type TreeFiles,
} from './snapshot-reader.ts';
import { MANIFEST_FILE } from '../export/layout.ts';
import { fileIn, readManifest } from '../export/export-files.ts';
import type { Manifest } from '../export/manifest.ts';
import { previewImageFile, type PreviewManifest } from '../export/preview-tree.ts';
import { loadPreviewManifest, previewTreeOf } from '../export/preview-trees.ts';
import { previewRootOf } from '../config/state-layout.ts';
import { isMissingFile } from '../problems/problem.ts';

export interface LocalSnapshotReader extends SnapshotReader {
  /** The current snapshot, reloaded first if dist/ was rebuilt since (for callers without watch). */
  fresh(): Snapshot | null;
  /** The slugs of the drafts of `snapshot`'s build per site (a site with none is absent); null when its preview tree cannot be read. */
  draftSlugs(snapshot: Snapshot): Promise<ReadonlyMap<string, ReadonlySet<string>> | null>;
  /** Loads dist/ now; returns true when a different build was loaded. */
  reload(): boolean;
  /**
   * Reloads when dist/ is rebuilt: told by the file system when it can (a build swaps dist/ in by
   * rename, seen in its parent folder), with a poll of the manifest behind it; returns a stop function.
   */
  watch(onReload?: (snap: Snapshot) => void, intervalMs?: number): () => void;
}

/** The build in `distDir` as it is now; null when there is none (or it kept changing while read). */
export function loadLocalSnapshot(distDir: string): Snapshot | null {
  const files: TreeFiles = {
    read: (key) => fs.readFileSync(fileIn(distDir, key)),
    name: (key) => fileIn(distDir, key),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const manifest = readManifest(distDir);
    if (!manifest) return null;
    try {
      const snapshot = assembleSnapshot(manifest, files);
      // A build swapped in while we read would mix two trees: read again.
      if (readManifest(distDir)?.buildId !== manifest.buildId) continue;
      return snapshot;
    } catch (err) {
      // A build swapped in while we read: its files need not match the manifest we read first.
      if (isMissingFile(err) || readManifest(distDir)?.buildId !== manifest.buildId) continue;
      throw err;
    }
  }
  return null;
}

/** What a server takes up: builds made for its public URL (see build-public-url.ts). */
export interface ServedUrlGuard {
  publicUrl: string;
  /** Told once per build in dist/ that was made for another public URL and so not swapped in. */
  refused(manifest: Manifest): void;
}

/**
 * A reader of `distDir`, with the drafts of the preview trees in `stateDir`; nothing is loaded
 * until reload() (or fresh()) is called. With a guard, a build made for another public URL never
 * replaces the one loaded (the first one loaded is taken whatever it was made for: there is no other).
 */
export function openLocalSnapshot(
  distDir: string,
  stateDir: string,
  guard: ServedUrlGuard | null = null,
): LocalSnapshotReader {
  let snapshot: Snapshot | null = null;
  let refusedId: string | null = null;
  let seen = '';
  const manifestFile = fileIn(distDir, MANIFEST_FILE);
  const previewRoot = previewRootOf(stateDir);
  // The preview manifest of one build (the one previews ask for: the current), read once.
  let preview: { buildId: string; manifest: Promise<PreviewManifest> } | null = null;
  const previewOf = (buildId: string): Promise<PreviewManifest> => {
    if (preview?.buildId !== buildId) {
      const manifest = loadPreviewManifest(previewRoot, buildId);
      const entry = { buildId, manifest };
      manifest.catch(() => {
        if (preview === entry) preview = null; // read again next time
      });
      preview = entry;
    }
    return preview.manifest;
  };
  const readPreviewFile = (buildId: string, key: string) =>
    fs.promises.readFile(path.join(previewTreeOf(previewRoot, buildId), key));
  const reader: LocalSnapshotReader = {
    current: () => snapshot,
    async readImage(siteId, name) {
      const snap = snapshot;
      if (!snap) return null;
      const key = imageKey(snap, siteId, name);
      if (key) return fs.promises.readFile(fileIn(distDir, key));
      if (!snap.sites.has(siteId)) return null;
      // Without its preview tree the build has no draft images to give (answers to preview keys are never cached).
      const drafts = (await previewOf(snap.buildId).catch(() => null))?.sites[siteId];
      return drafts && Object.values(drafts.images).includes(name)
        ? readPreviewFile(snap.buildId, previewImageFile(siteId, name))
        : null;
    },
    async readDrafts(snap, siteId) {
      const manifest = await previewOf(snap.buildId);
      return readDraftFiles(manifest.sites[siteId], siteId, snap.buildId, (key) => readPreviewFile(snap.buildId, key));
    },
    async draftSlugs(snap) {
      const manifest = await previewOf(snap.buildId).catch(() => null);
      return (
        manifest && new Map(Object.entries(manifest.sites).map(([id, site]) => [id, new Set(Object.keys(site.drafts))]))
      );
    },
    fresh() {
      changed();
      return snapshot;
    },
    reload() {
      const next = loadLocalSnapshot(distDir);
      if (!next) seen = ''; // none, or swapped while read: the next look loads again
      if (!next || next.buildId === snapshot?.buildId) return false;
      if (guard && snapshot && next.manifest.publicUrl !== guard.publicUrl) {
        if (refusedId !== next.buildId) guard.refused(next.manifest);
        refusedId = next.buildId;
        return false;
      }
      snapshot = next;
      return true;
    },
    watch(onReload, intervalMs = 500) {
      const check = () => {
        if (changed() && snapshot) onReload?.(snapshot);
      };
      fs.watchFile(manifestFile, { interval: intervalMs, persistent: false }, check);
      const swaps = watchSwaps(distDir, check);
      return () => {
        fs.unwatchFile(manifestFile, check);
        swaps?.close();
      };
    },
  };
  /** Reloads when the manifest was replaced (a stat is cheap; loading a snapshot is not); true when a new build was loaded. */
  const changed = (): boolean => {
    let stamp = '';
    try {
      const st = fs.statSync(manifestFile);
      stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      return false;
    }
    if (stamp === seen) return false;
    seen = stamp;
    return reader.reload();
  };
  return reader;
}

/** Calls `onSwap` when something named like dist/ changes in its parent folder; null where the platform cannot watch (the poll remains). */
function watchSwaps(distDir: string, onSwap: () => void): fs.FSWatcher | null {
  const name = path.basename(distDir);
  try {
    const watcher = fs.watch(path.dirname(distDir), { persistent: false }, (_event, file) => {
      if (file === null || file === name) onSwap();
    });
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return null;
  }
}
