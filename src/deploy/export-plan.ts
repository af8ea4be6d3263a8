// A build in dist/ as the objects of its export (src/dist/object-export.ts): every public file
// the manifest names, hashed by its bytes, each site's part, and the build's document. The
// preview area (drafts) is left out: the export is for storage a public edge reads.
import fs from 'node:fs';
import { hashBytes } from '../dist/content-hash.ts';
import { contentTypeOf, isPreviewFile, siteTreeFiles } from '../dist/layout.ts';
import { fileIn } from '../dist/local-dist.ts';
import type { Manifest } from '../dist/manifest.ts';
import { buildKey, EXPORT_FORMAT, exportJson, objectKey, type ExportBuild, type ExportSite } from '../dist/object-export.ts';

/** One object to store: its bytes, and the type it is served with. */
export interface PlannedObject {
  bytes: Uint8Array;
  contentType: string;
}

export interface ExportPlan {
  buildId: string;
  /** Object key (object-export.ts objectKey) → its bytes: files and site parts, each once. */
  objects: Map<string, PlannedObject>;
  /** Site id → the hash of its part. */
  sites: Record<string, string>;
  /** Site id → the keys of the objects its part names (its files), for what an unchanged site keeps. */
  siteObjects: Map<string, string[]>;
  /** The build's document and its key. */
  build: { key: string; bytes: Uint8Array };
}

const typeOf = (key: string) => (key.endsWith('.json') ? 'application/json' : contentTypeOf(key));

/** The export of the build `manifest` describes, read from `distDir`. */
export function planExport(distDir: string, manifest: Manifest): ExportPlan {
  const objects = new Map<string, PlannedObject>();
  const sites: Record<string, string> = {};
  const siteObjects = new Map<string, string[]>();
  for (const [id, m] of Object.entries(manifest.sites)) {
    const files: Record<string, string> = {};
    for (const key of siteTreeFiles(id, m)) {
      if (isPreviewFile(key)) continue;
      const bytes = fs.readFileSync(fileIn(distDir, key));
      const hash = hashBytes(bytes);
      files[key] = hash;
      if (!objects.has(objectKey(id, hash))) objects.set(objectKey(id, hash), { bytes, contentType: typeOf(key) });
    }
    const { drafts: _drafts, previewImages: _previewImages, ...site } = m;
    const part: ExportSite = { site, files };
    const bytes = exportJson(part);
    const hash = hashBytes(bytes);
    objects.set(objectKey(id, hash), { bytes, contentType: 'application/json' });
    sites[id] = hash;
    siteObjects.set(id, Object.values(files).map((h) => objectKey(id, h)));
  }
  const build: ExportBuild = {
    format: EXPORT_FORMAT,
    buildId: manifest.buildId,
    builtAt: manifest.builtAt,
    renderer: manifest.renderer,
    publicUrl: manifest.publicUrl,
    inputs: manifest.inputs,
    sites,
  };
  return { buildId: manifest.buildId, objects, sites, siteObjects, build: { key: buildKey(manifest.buildId), bytes: exportJson(build) } };
}
