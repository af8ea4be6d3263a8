// dist/manifest.json: what a build produced, with content hashes. The server and the publish
// step read it; a build whose manifest matches the current one writes nothing.
import { createHash, hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fixFor, isMissingFile, ProblemError } from '../problems/problem.ts';

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

/**
 * The manifest of the build in `distDir`; null when there is none (no build yet), or when it is
 * another version's (the next build writes all of dist/ anew). A manifest that is there but cannot
 * be read or is not one is a ProblemError naming it, never "no build": the key generations it
 * records are what lets a reset keys.json be noticed (src/keys/key-record.ts).
 */
export function readManifest(distDir: string): Manifest | null {
  const file = path.join(distDir, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return null;
    throw new ProblemError('MANIFEST_UNREADABLE', `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): ${fixFor('MANIFEST_UNREADABLE')}`, { cause: err });
  }
  let data: Partial<Manifest> | null;
  try {
    data = JSON.parse(text) as Partial<Manifest> | null;
  } catch (err) {
    throw new ProblemError('MANIFEST_UNREADABLE', `${file} is not JSON (${(err as Error).message}): ${fixFor('MANIFEST_UNREADABLE')}`, { cause: err });
  }
  // A shallow check: the file is our own output, and a full schema parse of a large site costs
  // more than the rest of a no-change build. Consumers treat missing parts as absent.
  if (typeof data?.format === 'number' && data.format !== MANIFEST_FORMAT) return null;
  if (data?.format !== MANIFEST_FORMAT || typeof data.buildId !== 'string' || !data.sites || typeof data.sites !== 'object') {
    throw new ProblemError('MANIFEST_UNREADABLE', `${file} is not a build manifest: ${fixFor('MANIFEST_UNREADABLE')}`);
  }
  return data as Manifest;
}
