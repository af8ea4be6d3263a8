// What the API, the admin app, MCP and verify read a build through: a snapshot of dist/ held as
// ready-to-send bytes, and the reader that keeps the current one. Where the files come from is
// the reader's business: local-snapshot.ts reads a folder and follows its manifest; a reader
// of object storage can assemble the same snapshot (assembleSnapshot) from the same keys. No
// Node-only imports here.
import type { ArticleListItem, SiteSummary } from '../contract/article.ts';
import { createFilteredList, type FilteredList } from './filtered-list.ts';
import { hashBytes } from '../export/content-hash.ts';
import { articleFile, encodedFile, imageFile, listFile, listIndexFile, type ContentCoding } from '../export/layout.ts';
import { parseListIndex } from '../export/list-index.ts';
import type { Manifest, ManifestSite } from '../export/manifest.ts';
import { previewArticleFile, previewItemFile, type PreviewDraft, type PreviewSite } from '../export/preview-tree.ts';
import type { EncodedVariants } from '../export/body-encodings.ts';

export type { EncodedVariants };

export interface Body {
  bytes: Uint8Array;
  etag: string;
  /**
   * The build's compressed variants of `bytes` (layout.ts `encodedFile`); `{}` for a body the
   * build keeps in identity only. Absent on bodies made after the build (a list remade at a
   * go-live, a filtered page, a preview): the API compresses those itself.
   */
  encoded?: EncodedVariants;
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
  /**
   * The hashed names of the site's published images (SnapshotReader.readImage reads them); in a
   * timed view, only those that articles live at its instant use (the ones served publicly).
   */
  images: ReadonlySet<string>;
}

/** One build, as read: never changed afterwards (a new build is a new snapshot). */
export interface Snapshot {
  buildId: string;
  manifest: Manifest;
  sites: Map<string, SiteContent>;
}

export interface SnapshotReader {
  /** The build being served; null until one has been loaded. */
  current(): Snapshot | null;
  /**
   * An image of the current build, by site and hashed name, published or only drafts use (from
   * the build's preview tree); null when it has no such image. Who may see which is the served
   * view's business (timed-view.ts).
   */
  readImage(siteId: string, name: string): Promise<Uint8Array | null>;
  /**
   * The drafts of one site of `snapshot`'s build, from that build's preview tree (for preview keys
   * only: public answers never read them). Throws when the tree or a file is missing, or a file is
   * not the one its manifest lists.
   */
  readDrafts(snapshot: Snapshot, siteId: string): Promise<ReadonlyMap<string, Draft>>;
}

/** Where the published image `name` of a site stands in dist/; null when the build has none. */
export function imageKey(snapshot: Snapshot, siteId: string, name: string): string | null {
  return snapshot.sites.get(siteId)?.images.has(name) ? imageFile(siteId, name) : null;
}

/** A draft as a preview shows it: its entry in the preview manifest and its files. */
export interface Draft {
  entry: PreviewDraft;
  item: Uint8Array;
  body: Uint8Array;
}

/**
 * Reads a site's drafts with `read` (by preview-tree.ts key), each checked against the hashes of
 * its entry in `site` (the preview manifest's): a file of another tree is refused, never shown
 * as this build's.
 */
export async function readDraftFiles(
  site: PreviewSite | undefined,
  siteId: string,
  buildId: string,
  read: (key: string) => Promise<Uint8Array>,
): Promise<Map<string, Draft>> {
  const drafts = new Map<string, Draft>();
  for (const [slug, entry] of Object.entries(site?.drafts ?? {})) {
    const [body, item] = await Promise.all([
      read(previewArticleFile(siteId, slug)),
      read(previewItemFile(siteId, slug)),
    ]);
    if (hashBytes(body) !== entry.bodyHash || hashBytes(item) !== entry.itemHash)
      throw new Error(`the preview files of draft "${slug}" (site "${siteId}") are not those of build ${buildId}`);
    drafts.set(slug, { entry, body, item });
  }
  return drafts;
}

const etagOf = (hash: string) => `"${hash}"`;
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A JSON body parsed (for views of it: the API sends the bytes as they are). */
export const parseBody = (body: Body): unknown => JSON.parse(utf8.decode(body.bytes));

/** Where a reader gets a tree's files: by layout.ts key. */
export interface TreeFiles {
  /** The file's bytes; throws when it cannot be read. */
  read(key: string): Uint8Array;
  /** How errors name the file (a path on disk, an object's URL). */
  name(key: string): string;
}

/**
 * The snapshot of the tree `manifest` describes, from its files. Throws when one cannot be read
 * or the list index does not fit its list (naming the file).
 */
export function assembleSnapshot(manifest: Manifest, files: TreeFiles): Snapshot {
  const sites = new Map<string, SiteContent>();
  for (const [id, m] of Object.entries(manifest.sites)) sites.set(id, assembleSite(id, m, files));
  return { buildId: manifest.buildId, manifest, sites };
}

/**
 * One site of a snapshot, from its files; with `slugs`, only those articles' bodies are read (a
 * reader that loads bodies on demand, as the edge's, passes the ones a request names).
 */
export function assembleSite(
  id: string,
  m: ManifestSite,
  files: TreeFiles,
  slugs: Iterable<string> = Object.keys(m.articles),
): SiteContent {
  const { read } = files;
  const listBytes = read(listFile(id));
  const list = JSON.parse(utf8.decode(listBytes)) as { site: SiteSummary; articles: ArticleListItem[] };
  const indexKey = listIndexFile(id);
  const index = parseListIndex(utf8.decode(read(indexKey)), files.name(indexKey), {
    hash: m.listHash,
    bytes: listBytes.length,
    count: list.articles.length,
  });
  const articles = new Map<string, Body>();
  for (const slug of slugs) {
    const key = articleFile(id, slug);
    const entry = m.articles[slug]!;
    articles.set(slug, {
      bytes: read(key),
      etag: etagOf(entry.bodyHash),
      encoded: readEncoded(key, entry.encodings, read),
    });
  }
  return {
    id,
    summary: list.site,
    list: { bytes: listBytes, etag: etagOf(m.listHash), encoded: readEncoded(listFile(id), m.listEncodings, read) },
    items: list.articles.map((item) => ({ item, kind: m.articles[item.slug]?.kind ?? 'standard' })),
    filtered: createFilteredList(index, listBytes),
    articles,
    images: new Set(Object.values(m.images)),
  };
}

/** The compressed variants of the body at `key` that the manifest names. */
function readEncoded(
  key: string,
  codings: readonly ContentCoding[] | undefined,
  read: TreeFiles['read'],
): EncodedVariants {
  const encoded: EncodedVariants = {};
  for (const coding of codings ?? []) encoded[coding] = read(encodedFile(key, coding));
  return encoded;
}
