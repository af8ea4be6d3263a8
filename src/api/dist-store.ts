// Holds dist/ in memory as ready-to-send bytes, and swaps in a new build when the manifest
// changes on disk, without a restart.
import fs from 'node:fs';
import type { ArticleListItem, SiteSummary } from '../contract/article.ts';
import { articleFile, imageFile, listFile, listIndexFile, MANIFEST_FILE } from '../dist/layout.ts';
import { parseListIndex } from '../dist/list-index.ts';
import { fileIn, readManifest } from '../dist/local-dist.ts';
import type { Manifest } from '../dist/manifest.ts';
import { createFilteredList, type FilteredList } from './filtered-list.ts';

export interface Body {
  bytes: Buffer;
  etag: string;
}

export interface SiteContent {
  id: string;
  summary: SiteSummary;
  list: Body;
  /** Parsed list items with their kinds (the admin app's and verify's view of the list). */
  items: { item: ArticleListItem; kind: string }[];
  /** Filtered and paged lists, from the build's list index. */
  filtered: FilteredList;
  articles: Map<string, Body>;
  /** Hashed image file name → absolute path. */
  images: Map<string, string>;
}

export interface DistSnapshot {
  buildId: string;
  manifest: Manifest;
  sites: Map<string, SiteContent>;
}

export interface DistStore {
  current(): DistSnapshot | null;
  /** The current snapshot, reloaded first if dist/ was rebuilt since (for callers without watch). */
  fresh(): DistSnapshot | null;
  /** Loads dist/ now; returns true when a different build was loaded. */
  reload(): boolean;
  /** Polls the manifest and reloads on change; returns a stop function. */
  watch(onReload?: (snap: DistSnapshot) => void, intervalMs?: number): () => void;
}

const etagOf = (hash: string) => `"${hash}"`;

export function loadDistSnapshot(distDir: string): DistSnapshot | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    const manifest = readManifest(distDir);
    if (!manifest) return null;
    try {
      const sites = new Map<string, SiteContent>();
      for (const [id, m] of Object.entries(manifest.sites)) {
        const listBytes = fs.readFileSync(fileIn(distDir, listFile(id)));
        const list = JSON.parse(listBytes.toString('utf8')) as { site: SiteSummary; articles: ArticleListItem[] };
        const indexFile = fileIn(distDir, listIndexFile(id));
        const index = parseListIndex(fs.readFileSync(indexFile, 'utf8'), indexFile, { hash: m.listHash, bytes: listBytes.length, count: list.articles.length });
        const articles = new Map<string, Body>();
        for (const [slug, entry] of Object.entries(m.articles)) {
          articles.set(slug, { bytes: fs.readFileSync(fileIn(distDir, articleFile(id, slug))), etag: etagOf(entry.bodyHash) });
        }
        const images = new Map<string, string>();
        for (const distName of Object.values(m.images)) images.set(distName, fileIn(distDir, imageFile(id, distName)));
        sites.set(id, {
          id,
          summary: list.site,
          list: { bytes: listBytes, etag: etagOf(m.listHash) },
          items: list.articles.map((item) => ({ item, kind: m.articles[item.slug]?.kind ?? 'standard' })),
          filtered: createFilteredList(index, listBytes),
          articles,
          images,
        });
      }
      // A build swapped in while we read would mix two trees: read again.
      if (readManifest(distDir)?.buildId !== manifest.buildId) continue;
      return { buildId: manifest.buildId, manifest, sites };
    } catch (err) {
      // A build swapped in while we read: its files need not match the manifest we read first.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || readManifest(distDir)?.buildId !== manifest.buildId) continue;
      throw err;
    }
  }
  return null;
}

export function createDistStore(distDir: string): DistStore {
  let snapshot: DistSnapshot | null = null;
  let seen = '';
  const store: DistStore = {
    current: () => snapshot,
    fresh() {
      // A stat is cheap; loading a snapshot is not: reload only when the manifest was replaced.
      let stamp = '';
      try {
        const st = fs.statSync(fileIn(distDir, MANIFEST_FILE));
        stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
      } catch {
        return snapshot;
      }
      if (stamp !== seen) {
        seen = stamp;
        store.reload();
      }
      return snapshot;
    },
    reload() {
      const next = loadDistSnapshot(distDir);
      if (!next || next.buildId === snapshot?.buildId) return false;
      snapshot = next;
      return true;
    },
    watch(onReload, intervalMs = 500) {
      const manifestFile = fileIn(distDir, MANIFEST_FILE);
      const listener = () => {
        if (store.reload() && snapshot) onReload?.(snapshot);
      };
      fs.watchFile(manifestFile, { interval: intervalMs, persistent: false }, listener);
      return () => fs.unwatchFile(manifestFile, listener);
    },
  };
  return store;
}
