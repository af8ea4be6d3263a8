// A build in dist/ as the objects of its export (src/export/object-export.ts): every file the
// manifest names, named by the hash of its bytes, each site's part, and the build's document.
// dist/ holds no drafts (they are in the build's preview tree, outside it), so none is exported.
//
// Bodies and lists are named by the hashes the manifest already has for them (the same
// hash of the same bytes), so planning a deploy reads only the other files; a file is read when
// it is uploaded, and checked against its name then: a dist/ swapped by a build meanwhile fails
// the deploy instead of storing bytes under another file's name.
import fs from 'node:fs';
import { hashBytes } from '../export/content-hash.ts';
import { articleFile, contentTypeOf, listFile, siteTreeFiles } from '../export/layout.ts';
import { fileIn } from '../export/export-files.ts';
import type { Manifest } from '../export/manifest.ts';
import {
  buildKey,
  EXPORT_FORMAT,
  exportJson,
  objectKey,
  type ExportBuild,
  type ExportSite,
} from '../export/object-export.ts';
import { ProblemError } from '../problems/problem.ts';

/** One object to store: the type it is served with, its length and its bytes (read on demand). */
export interface PlannedObject {
  contentType: string;
  size(): number;
  bytes(): Uint8Array;
}

/** A file of dist/ no longer has the bytes its name says: a build replaced dist/ during the deploy. */
export class ExportChangedError extends ProblemError<'DEPLOY_INTERRUPTED'> {
  constructor(readonly file: string) {
    super(
      'DEPLOY_INTERRUPTED',
      `${file} changed while it was deployed (a build replaced dist/): run \`quire deploy\` again`,
    );
    this.name = 'ExportChangedError';
  }
}

const inMemory = (bytes: Uint8Array, contentType: string): PlannedObject => ({
  contentType,
  size: () => bytes.length,
  bytes: () => bytes,
});

function onDisk(file: string, hash: string, contentType: string): PlannedObject {
  let size: number | null = null;
  return {
    contentType,
    size: () => (size ??= fs.statSync(file).size),
    bytes() {
      const bytes = fs.readFileSync(file);
      if (hashBytes(bytes) !== hash) throw new ExportChangedError(file);
      return bytes;
    },
  };
}

/** The hash the manifest has for a file's bytes, when it has one. */
function knownHash(id: string, m: Manifest['sites'][string], key: string): string | undefined {
  if (key === listFile(id)) return m.listHash;
  const slug = key.slice(key.lastIndexOf('/') + 1, -'.json'.length);
  const entry = Object.hasOwn(m.articles, slug) ? m.articles[slug]! : undefined;
  if (!entry) return undefined;
  if (key === articleFile(id, slug)) return entry.bodyHash;
  return undefined;
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
      const file = fileIn(distDir, key);
      const hash = knownHash(id, m, key) ?? hashBytes(fs.readFileSync(file));
      files[key] = hash;
      if (!objects.has(objectKey(id, hash))) objects.set(objectKey(id, hash), onDisk(file, hash, typeOf(key)));
    }
    const part: ExportSite = { site: m, files };
    const bytes = exportJson(part);
    const hash = hashBytes(bytes);
    objects.set(objectKey(id, hash), inMemory(bytes, 'application/json'));
    sites[id] = hash;
    siteObjects.set(
      id,
      Object.values(files).map((h) => objectKey(id, h)),
    );
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
  return {
    buildId: manifest.buildId,
    objects,
    sites,
    siteObjects,
    build: { key: buildKey(manifest.buildId), bytes: exportJson(build) },
  };
}
