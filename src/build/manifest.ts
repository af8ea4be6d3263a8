// dist/manifest.json: what a build produced, with content hashes. The server and the publish
// step read it; a build whose manifest matches the current one writes nothing.
import { createHash, hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
/** 2: each site has its list index (articles.index.json). */
export const MANIFEST_FORMAT = 2;

export interface ManifestArticle {
  file: string;
  sourceHash: string;
  /** Hash of every input of the article's output: unchanged means its files can be reused. */
  inputKey: string;
  bodyHash: string;
  payloadHash: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  /** Site paths of the images its output uses. */
  images: string[];
}

export interface ManifestSite {
  name: string;
  lang: string;
  url: string;
  articlePath: string;
  listHash: string;
  articles: Record<string, ManifestArticle>;
  images: Record<string, string>;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  buildId: string;
  builtAt: string;
  renderer: string;
  publicUrl: string;
  /** Hash of every input of the build: equal means nothing to do. */
  inputs: string;
  sites: Record<string, ManifestSite>;
  /**
   * Per site, the API key generation when this build ran (sites above 1 only): lets a lost or
   * reset keys.json be noticed (src/keys/key-record.ts). Absent in older manifests.
   */
  keyGenerations?: Record<string, number>;
}

// One-shot crypto.hash is ~4x faster than createHash().update().digest() for the short keys a
// build hashes for every article.
export const hashBytes = (data: string | Uint8Array): string => hash('sha256', data, 'base64url').slice(0, 32);

/** hashBytes() of the pieces joined, without joining them. */
export function hashParts(parts: Uint8Array[]): string {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest('base64url').slice(0, 32);
}

export function readManifest(distDir: string): Manifest | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(distDir, MANIFEST_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const data = JSON.parse(text) as Manifest;
    // A shallow check: the file is our own output, and a full schema parse of a large site costs
    // more than the rest of a no-change build. Consumers treat missing parts as absent.
    return data.format === MANIFEST_FORMAT && typeof data.buildId === 'string' && data.sites && typeof data.sites === 'object' ? data : null;
  } catch {
    return null; // torn or hand-edited: as if there were none
  }
}
