// A build's preview tree: its drafts and the images only drafts use, for preview keys only. It is
// never part of dist/ (which must be safe to publish as it is): each build writes one, named by
// its build id, in the state dir (preview-trees.ts says where). Its format and file names, the
// one place that spells them; no Node imports.
//
//   preview.json                   the build's drafts per site, with hashes (PreviewManifest)
//   <site>/articles/<slug>.json    a draft's API body (preview answers add its status)
//   <site>/items/<slug>.json       a draft's list item
//   <site>/images/<name>           an image only drafts use (served at /assets/ to the preview key)
//
// dist/manifest.json names no draft: the build id it carries names this tree, so a reader never
// pairs a dist/ with another build's drafts.
export const PREVIEW_MANIFEST_FILE = 'preview.json';
export const PREVIEW_FORMAT = 1;

/** A draft's API body. */
export const previewArticleFile = (siteId: string, slug: string): string => `${siteId}/articles/${slug}.json`;
/** A draft's list item. */
export const previewItemFile = (siteId: string, slug: string): string => `${siteId}/items/${slug}.json`;
/** An image only drafts use. */
export const previewImageFile = (siteId: string, name: string): string => `${siteId}/images/${name}`;
/** The files a draft has. */
export const previewFiles = (siteId: string, slug: string): string[] => [
  previewArticleFile(siteId, slug),
  previewItemFile(siteId, slug),
];

/** A draft: what preview answers show of it, and what lets the next build take its files over unchanged. */
export interface PreviewDraft {
  file: string;
  sourceHash: string;
  inputKey: string;
  bodyHash: string;
  /** Hash of its list item (drafts have no webhook payload). */
  itemHash: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  expiresAt?: string;
  images: string[];
}

export interface PreviewSite {
  drafts: Record<string, PreviewDraft>;
  /** Images only drafts use: site path → hashed name (served to the site's preview key only). */
  images: Record<string, string>;
}

export interface PreviewManifest {
  format: typeof PREVIEW_FORMAT;
  /** The build (dist/manifest.json's buildId) whose drafts these are. */
  buildId: string;
  /** Sites with drafts or draft-only images; a site without is absent. */
  sites: Record<string, PreviewSite>;
}

/** Every file of the preview tree `manifest` describes, but the manifest itself. */
export function previewTreeFiles(manifest: PreviewManifest): string[] {
  return Object.entries(manifest.sites).flatMap(([id, site]) => [
    ...Object.keys(site.drafts).flatMap((slug) => previewFiles(id, slug)),
    ...Object.values(site.images).map((name) => previewImageFile(id, name)),
  ]);
}

/**
 * The preview manifest in `text`; null when it is not one of this version (another version's, or
 * damaged): the tree is output, not state, and the next build writes it anew.
 */
export function parsePreviewManifest(text: string): PreviewManifest | null {
  let data: Partial<PreviewManifest> | null;
  try {
    data = JSON.parse(text) as Partial<PreviewManifest> | null;
  } catch {
    return null;
  }
  if (
    data?.format !== PREVIEW_FORMAT ||
    typeof data.buildId !== 'string' ||
    !data.sites ||
    typeof data.sites !== 'object'
  )
    return null;
  return data as PreviewManifest;
}

/** The file's bytes: one line of JSON. */
export const previewManifestJson = (manifest: PreviewManifest): string => `${JSON.stringify(manifest)}\n`;
