// A site's part of the export as a build makes it: each published article's files in dist/ and its
// manifest entry, each draft's in the build's preview tree (never dist/), and the list of the
// published ones, newest first, with its index.
import type { ArticleListItem } from '../contract/article.ts';
import type { ArticleSource, Site } from '../content/model.ts';
import { webhookArticleJson, type ArticleBody } from '../articles/shapes.ts';
import { newestFirst } from '../articles/list-order.ts';
import { hashBytes, hashParts } from '../export/content-hash.ts';
import { articleFile, listFile, listIndexFile, type ContentCoding } from '../export/layout.ts';
import { listBodyParts, listItemSpans } from '../export/list-body.ts';
import { makeListIndex } from '../export/list-index.ts';
import type { ManifestArticle } from '../export/manifest.ts';
import { previewArticleFile, previewItemFile, type PreviewDraft } from '../export/preview-tree.ts';
import type { ExportWriter } from '../export/writer/export-writer.ts';
import type { PreviewWriter } from '../export/writer/preview-writer.ts';
import type { ExportEncoder } from './export-encoder.ts';

/**
 * List items are kept until the list is written: each in a buffer of its own (TextEncoder), not a
 * slice of Buffer's shared pool (64 KiB slabs on Node 24), which the compressed bodies fill
 * meanwhile: an item there would keep a whole slab of them alive (docs/benchmarks-log.md,
 * "compressed answers").
 */
const UTF8 = new TextEncoder();

interface ListEntry {
  slug: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  json: Uint8Array;
}

/** One compiled article: what it is made of and where it came from. */
export interface CompiledArticle {
  source: ArticleSource;
  inputKey: string;
  body: ArticleBody;
  item: ArticleListItem;
  /** Site paths of the images it uses: its front matter's first. */
  images: string[];
}

/** The site's list as written: its hash and, once compressed, its codings. */
export interface WrittenList {
  hash: string;
  encodings: ContentCoding[];
}

export class SiteOutput {
  // The list is assembled from each item's JSON: an unchanged item is never parsed or re-serialized.
  private readonly items: ListEntry[] = [];
  private readonly entries: Record<string, ManifestArticle> = {};
  readonly drafts: Record<string, PreviewDraft> = {};

  constructor(
    private readonly site: Site,
    private readonly writer: ExportWriter | null,
    private readonly preview: PreviewWriter | null,
    private readonly encoder: ExportEncoder | null,
  ) {}

  get published(): number {
    return this.items.length;
  }

  /** A published article taken over from the previous build: its files are (the writer completes the tree from the manifest). */
  keepPublished(slug: string, before: ManifestArticle, item: Uint8Array): void {
    this.items.push({
      slug,
      kind: before.kind,
      publishedAt: before.publishedAt,
      updatedAt: before.updatedAt,
      json: item,
    });
    this.entries[slug] = before;
  }

  /** A draft taken over from the previous build's preview tree. */
  keepDraft(slug: string, draft: PreviewDraft): void {
    this.drafts[slug] = draft;
  }

  add({ source, inputKey, body, item, images }: CompiledArticle): void {
    const { meta } = source;
    // Each body is encoded to UTF-8 once, and those bytes are hashed, written and compressed.
    const bodyBytes = Buffer.from(JSON.stringify(body));
    if (meta.status !== 'published') {
      // Drafts go to the preview tree only: no webhook payload, not in the list, not in dist/.
      const itemJson = JSON.stringify(item);
      this.preview?.write(previewArticleFile(this.site.id, meta.slug), bodyBytes);
      this.preview?.write(previewItemFile(this.site.id, meta.slug), itemJson);
      this.drafts[meta.slug] = {
        file: source.sitePath,
        sourceHash: source.hash,
        inputKey,
        bodyHash: hashBytes(bodyBytes),
        itemHash: hashBytes(itemJson),
        kind: meta.kind,
        publishedAt: body.publishedAt,
        updatedAt: body.updatedAt,
        ...(meta.expiresAt ? { expiresAt: meta.expiresAt } : {}),
        images,
      };
      return;
    }
    // Only hashed: publish makes it again from the stored body (a file per article cost a
    // cold build more than making it again costs a publish: docs/benchmarks-log.md, "fewer files
    // per cold build"). Hashed as a string: its bytes are made and freed outside the JS heap,
    // where a Buffer here would wait for a collection.
    const payloadJson = webhookArticleJson(body);
    this.items.push({
      slug: meta.slug,
      kind: meta.kind,
      publishedAt: body.publishedAt,
      updatedAt: body.updatedAt,
      json: UTF8.encode(JSON.stringify(item)),
    });
    const entry: ManifestArticle = (this.entries[meta.slug] = {
      file: source.sitePath,
      sourceHash: source.hash,
      inputKey,
      bodyHash: hashBytes(bodyBytes),
      payloadHash: hashBytes(payloadJson),
      kind: meta.kind,
      publishedAt: body.publishedAt,
      updatedAt: body.updatedAt,
      ...(meta.expiresAt ? { expiresAt: meta.expiresAt } : {}),
      images,
      ...(body.related.length ? { related: body.related.map((r) => r.slug) } : {}),
    });
    if (this.writer && this.encoder) {
      this.writer.write(articleFile(this.site.id, meta.slug), bodyBytes);
      this.encoder.add(articleFile(this.site.id, meta.slug), bodyBytes, (codings) => {
        if (codings.length) entry.encodings = codings;
      });
    }
  }

  /** Sorts the published articles into the list's order and writes the list and its index. */
  writeList(): WrittenList {
    const { site, writer } = this;
    this.items.sort(newestFirst);
    const itemJson = this.items.map((i) => i.json);
    const listParts = listBodyParts(site, itemJson);
    const written: WrittenList = { hash: hashParts(listParts), encodings: [] };
    writer?.writeParts(listFile(site.id), listParts);
    this.encoder?.add(listFile(site.id), Buffer.concat(listParts), (codings) => (written.encodings = codings));
    if (writer) {
      const index = makeListIndex(written.hash, this.items, listItemSpans(site, itemJson));
      writer.write(listIndexFile(site.id), JSON.stringify(index));
    }
    return written;
  }

  /** The manifest entries of the published articles, in list order (after writeList). */
  manifestArticles(): Record<string, ManifestArticle> {
    return Object.fromEntries(this.items.map((i) => [i.slug, this.entries[i.slug]!]));
  }
}
