// dist/manifest.json: what a build produced, with content hashes. The server and the publish
// step read it; a build whose manifest matches the current one writes nothing. Its format and
// check, without file access (export-files.ts reads and writes it on disk).
import { fixFor, ProblemError } from '../problems/problem.ts';
import type { ContentCoding } from './layout.ts';

/**
 * 2: each site has its list index (articles.index.json). 3: lists and article bodies may have
 * compressed variants beside them (`encodings`, `listEncodings`); a tree of format 2 has none,
 * so the first build of format 3 writes every file anew. 4: articles list the slugs their
 * `related` names (`related`), so readers can leave out those not live yet; a format 3 entry
 * cannot tell "none" from "not recorded", so the first build of format 4 writes every file anew.
 * 5: no webhook payload files (`<site>/webhooks/`): publish makes each payload from the article's
 * body; readers of format 4 would look for them, and its trees hold them.
 * 6: no drafts (`drafts`, `previewImages`) and no `_preview/` folder: drafts are in the build's
 * preview tree outside dist/ (preview-tree.ts), found by the build id; a format 5 tree holds
 * them, so the first build of format 6 writes every file anew, which drops `_preview/`.
 */
export const MANIFEST_FORMAT = 6;

export interface ManifestArticle {
  file: string;
  sourceHash: string;
  /** Hash of every input of the article's output: unchanged means its files can be reused. */
  inputKey: string;
  bodyHash: string;
  /**
   * Hash of its webhook payload's `article` (articles/shapes.ts webhookArticleJson, made from the body):
   * publish sends `updated` when it changes. Not a file in the tree.
   */
  payloadHash: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  /**
   * When the article is withdrawn (front matter `expiresAt`); absent when never. With a
   * publishedAt still ahead, this is the window in which it is served: the build writes every
   * published article, and readers show each only inside its window (src/schedule/), so no
   * rebuild is needed when one opens or closes.
   */
  expiresAt?: string;
  /** Site paths of the images its output uses. */
  images: string[];
  /**
   * The slugs its body's `related` names, in order (absent: none). The build names every
   * published article, scheduled ones too; a reader serves only those live at the instant
   * (src/snapshot/served-related.ts).
   */
  related?: string[];
  /** The compressed variants of its body in the tree (layout.ts `encodedFile`); absent: none. */
  encodings?: ContentCoding[];
}

export interface ManifestSite {
  name: string;
  lang: string;
  url: string;
  articlePath: string;
  /**
   * How long after each acknowledged `published` or `updated` delivery the article's live page is
   * first checked (ms), or false: not checked (site.yaml `verifyAfterDelivery`). Absent (a build
   * made before the checks): the default delay.
   */
  verifyAfterDelivery?: number | false;
  listHash: string;
  /** The compressed variants of its list in the tree; absent: none. */
  listEncodings?: ContentCoding[];
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

/**
 * The manifest in `text`, read from `file` (errors name it); null when it is another version's
 * (the next build writes all of dist/ anew). Text that is not a manifest is a ProblemError naming
 * the file, never "no build": the key generations it records are what lets a reset keys.json be
 * noticed (src/keys/key-record.ts).
 */
export function parseManifest(text: string, file: string): Manifest | null {
  let data: Partial<Manifest> | null;
  try {
    data = JSON.parse(text) as Partial<Manifest> | null;
  } catch (err) {
    throw new ProblemError(
      'MANIFEST_UNREADABLE',
      `${file} is not JSON (${(err as Error).message}): ${fixFor('MANIFEST_UNREADABLE')}`,
      { cause: err },
    );
  }
  // A shallow check: the file is our own output, and a full schema parse of a large site costs
  // more than the rest of a no-change build. Consumers treat missing parts as absent.
  if (typeof data?.format === 'number' && data.format !== MANIFEST_FORMAT) return null;
  if (
    data?.format !== MANIFEST_FORMAT ||
    typeof data.buildId !== 'string' ||
    !data.sites ||
    typeof data.sites !== 'object'
  ) {
    throw new ProblemError('MANIFEST_UNREADABLE', `${file} is not a build manifest: ${fixFor('MANIFEST_UNREADABLE')}`);
  }
  return data as Manifest;
}

/** The file's bytes: one line of JSON. */
export const manifestJson = (manifest: Manifest): string => `${JSON.stringify(manifest)}\n`;
