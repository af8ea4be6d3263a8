// Where everything stands in dist/, and the public URL of an image: the one place that spells
// them. Paths are keys relative to the dist/ root with `/` separators, so the same names serve a
// folder on disk and a bucket of objects. No Node-only imports: an edge runtime reads this too.
//
//   manifest.json                        what the build produced, with hashes (manifest.ts)
//   <site>/articles.json                 GET /v1/articles body (list-body.ts)
//   <site>/articles.json.br, .json.gz    the same bytes compressed, when the manifest names them
//   <site>/articles.index.json           the list index (list-index.ts)
//   <site>/articles/<slug>.json          GET /v1/articles/<slug> body
//   <site>/articles/<slug>.json.br, .gz  the same bytes compressed, when the manifest names them
//   <site>/images/<stem>.<hash><.ext>    a published image, served at /assets/<site>/<name> while a live article uses it
//
// Nothing of a draft is here, the manifest included: dist/ is safe to publish as it is. Drafts
// are in the build's preview tree, outside dist/ (preview-tree.ts).

export const MANIFEST_FILE = 'manifest.json';

/** The content codings a body may also be stored in (HTTP's names), in the server's order of preference. */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];
const CODING_SUFFIX: Record<ContentCoding, string> = { br: '.br', gzip: '.gz' };
/** The file holding `key`'s bytes compressed with `coding` (a plain file: it travels as an object like the rest). */
export const encodedFile = (key: string, coding: ContentCoding): string => `${key}${CODING_SUFFIX[coding]}`;
/** `key` and its compressed variants among `codings`. */
const withEncoded = (key: string, codings: readonly ContentCoding[] = []): string[] => [
  key,
  ...codings.map((c) => encodedFile(key, c)),
];
export const LIST_FILE = 'articles.json';
export const LIST_INDEX_FILE = 'articles.index.json';

/** A site's article list body. */
export const listFile = (siteId: string): string => `${siteId}/${LIST_FILE}`;
/** The index of a site's list. */
export const listIndexFile = (siteId: string): string => `${siteId}/${LIST_INDEX_FILE}`;
/** An article's API body. */
export const articleFile = (siteId: string, slug: string): string => `${siteId}/articles/${slug}.json`;
/** A published image, by its hashed name (which may hold `/`: images keep their sub-folders). */
export const imageFile = (siteId: string, name: string): string => `${siteId}/images/${name}`;

/** The files a site holds for itself (not per article or image); `codings`: its list's compressed variants. */
export const siteFiles = (siteId: string, codings?: readonly ContentCoding[]): string[] => [
  ...withEncoded(listFile(siteId), codings),
  listIndexFile(siteId),
];
/** The files a published article has; `codings`: its body's compressed variants. */
export const articleFiles = (siteId: string, slug: string, codings?: readonly ContentCoding[]): string[] =>
  withEncoded(articleFile(siteId, slug), codings);

/** What a build's manifest lists: enough to name every file of its tree. */
export interface TreeListing {
  sites: Record<
    string,
    {
      articles: Record<string, { encodings?: readonly ContentCoding[] }>;
      listEncodings?: readonly ContentCoding[];
      images: Record<string, string>;
    }
  >;
}

/** Every file of the tree a manifest describes, but the manifest itself. */
export function treeFiles(manifest: TreeListing): string[] {
  return Object.entries(manifest.sites).flatMap(([id, site]) => siteTreeFiles(id, site));
}

/** Every file of one site in the tree (compressed variants included). */
export function siteTreeFiles(id: string, site: TreeListing['sites'][string]): string[] {
  const files: string[] = [...siteFiles(id, site.listEncodings)];
  for (const [slug, entry] of Object.entries(site.articles)) files.push(...articleFiles(id, slug, entry.encodings));
  for (const name of Object.values(site.images)) files.push(imageFile(id, name));
  return files;
}

/**
 * The published name of the image at `rel` (its path under the site's `images/`) with content
 * hash `hash`: `photos/Cover.png` → `photos/Cover.<hash>.png`. The hash in the name lets it be
 * cached forever; the extension is lower-cased so the served type does not depend on its case.
 */
export function imageName(rel: string, hash: string): string {
  const ext = extensionOf(rel);
  return `${rel.slice(0, rel.length - ext.length)}.${hash}${ext.toLowerCase()}`;
}

/** The content hash in a published image name (its strong ETag), if it has one. */
export function hashInImageName(name: string): string | undefined {
  return name
    .slice(name.lastIndexOf('/') + 1)
    .split('.')
    .at(-2);
}

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
};

/** The type an image is served with, by its extension (any case); octet-stream for others. */
export function contentTypeOf(name: string): string {
  return IMAGE_TYPES[extensionOf(name).toLowerCase()] ?? 'application/octet-stream';
}

/** `.png` for `a/b.png`; '' when the last segment has no extension (as node:path's extname). */
function extensionOf(rel: string): string {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot) : '';
}

/** The API route that serves images (Hono syntax): the name may span segments. */
export const ASSET_ROUTE = '/assets/:site/:name{.+}';
const ASSET_PREFIX = '/assets/';

/** Whether a request path is in the images' space, `/assets/…` (for 405s and metric labels; parseAssetPath decides what it names). */
export const isAssetPath = (pathname: string): boolean =>
  pathname.length > ASSET_PREFIX.length && pathname.startsWith(ASSET_PREFIX);

/** The path, under the API's root, of a site's published image; each segment percent-encoded. */
export function assetPath(siteId: string, name: string): string {
  return `${ASSET_PREFIX}${encodeURIComponent(siteId)}/${name.split('/').map(encodeURIComponent).join('/')}`;
}

/** The public URL of a site's published image, under the API's public URL. */
export const assetUrl = (publicUrl: string, siteId: string, name: string): string =>
  `${publicUrl}${assetPath(siteId, name)}`;

/**
 * The site and image name of a request path as sent (percent-encoded), or null when it is not
 * one assetPath() could have made: outside /assets/, badly encoded, or with an empty, `.` or
 * `..` segment once decoded (`..%2Fmanifest.json` names no image, and must never become a path).
 */
export function parseAssetPath(pathname: string): { siteId: string; name: string } | null {
  if (!pathname.startsWith(ASSET_PREFIX)) return null;
  const raw = pathname.slice(ASSET_PREFIX.length).split('/');
  if (raw.length < 2) return null;
  let segments: string[];
  try {
    segments = raw.map(decodeURIComponent).join('/').split('/');
  } catch {
    return null; // malformed percent-encoding
  }
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) return null;
  const [siteId, ...name] = segments;
  // A site id with an encoded `/` in it would have split into more segments than it came as.
  if (siteId !== decodeURIComponent(raw[0]!)) return null;
  return { siteId: siteId!, name: name.join('/') };
}
