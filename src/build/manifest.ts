// dist/manifest.json: what a build produced, with content hashes. The server and the publish
// step read it; a build whose manifest matches the current one writes nothing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 1;

const ArticleEntry = z.object({
  file: z.string(),
  sourceHash: z.string(),
  /** Hash of every input of the article's output: unchanged means its files can be reused. */
  inputKey: z.string(),
  bodyHash: z.string(),
  payloadHash: z.string(),
  kind: z.string(),
  publishedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  /** Site paths of the images its output uses. */
  images: z.array(z.string()),
});

const SiteEntry = z.object({
  name: z.string(),
  lang: z.string(),
  url: z.string(),
  articlePath: z.string(),
  listHash: z.string(),
  articles: z.record(z.string(), ArticleEntry),
  images: z.record(z.string(), z.string()),
});

export const ManifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  buildId: z.string(),
  builtAt: z.string(),
  renderer: z.string(),
  publicUrl: z.string(),
  /** Hash of every input of the build: equal means nothing to do. */
  inputs: z.string(),
  sites: z.record(z.string(), SiteEntry),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestSite = z.infer<typeof SiteEntry>;
export type ManifestArticle = z.infer<typeof ArticleEntry>;

export const hashBytes = (data: string | Uint8Array): string =>
  createHash('sha256').update(data).digest('base64url').slice(0, 32);

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
