// One loaded site → its part of dist/: the exact API bodies of its published articles (webhook
// payloads are made from them), written as they are made; its drafts to the build's preview tree,
// never to dist/. An article whose inputs are all unchanged since the previous build is taken
// over from the previous dist/ (a draft: the previous preview tree) without being read or rendered.
import path from 'node:path';
import type { FileDates } from '../git/git-history.ts';
import { issue, type ContentIssue } from '../content/issues.ts';
import { assertInsideFolder } from '../content/content-files.ts';
import { CONTENT_LIMITS } from '../content/limits.ts';
import { readMarkdown, type LoadedSite } from '../content/load-content.ts';
import { fieldPlace, type ArticleSource } from '../content/model.ts';
import { renderFailed, type RenderProblem } from '../render/render-context.ts';
import type { RenderInput, RenderOutput } from '../render/render-markdown.ts';
import { collectGarbage } from './collect-garbage.ts';
import { articleDates, expiryNotAfterHistory } from '../articles/dates.ts';
import { chooseExcerpt } from '../articles/excerpt.ts';
import { articleBody, relatedArticles, toListItem, webhookArticleJson } from '../articles/shapes.ts';
import { newestFirst } from '../articles/list-order.ts';
import { hashBytes, hashParts } from '../export/content-hash.ts';
import { articleFile, imageFile, listFile, listIndexFile } from '../export/layout.ts';
import { listBodyParts, listItemSpans, type ListItems } from '../export/list-body.ts';
import { makeListIndex } from '../export/list-index.ts';
import type { ManifestArticle, ManifestSite } from '../export/manifest.ts';
import type { ExportWriter } from '../export/writer/export-writer.ts';
import { previewArticleFile, previewImageFile, previewItemFile, type PreviewDraft, type PreviewSite } from '../export/preview-tree.ts';
import type { PreviewWriter } from '../export/writer/preview-writer.ts';
import type { ContentCoding } from '../export/layout.ts';
import { articleKeysOf, type ArticleKeyMemo } from './article-keys.ts';
import { createExportEncoder } from './export-encoder.ts';
import { createImageResolver, type ImageHashCache, type PublishedImage } from './images.ts';
import type { RenderCache } from './render-cache.ts';
import { POOL_THRESHOLD, type RenderPool } from './render-pool.ts';

export interface PreviousSite {
  site: ManifestSite;
  items: ListItems;
  /** Its drafts in the previous build's preview tree; null when that tree is not there. */
  drafts: PreviewSite | null;
}

export interface CompileDeps {
  publicUrl: string;
  /** Dates from the history of the published articles that need them (src/articles/dates.ts). */
  dates: Map<string, FileDates>;
  /** Build keys of the source versions already seen (the build state's). */
  keys: ArticleKeyMemo;
  renderCache: RenderCache;
  imageHashes: ImageHashCache;
  /** Render problems by check key (article-keys.ts). */
  checked: Map<string, RenderProblem[]>;
  /** Worker threads for large batches; without it everything renders in this thread. */
  pool?: RenderPool;
  /** Where output goes; null when the build has already failed and only checks remain. */
  writer: ExportWriter | null;
  /** Where drafts go (the build's preview tree); null with `writer`. */
  preview: PreviewWriter | null;
  previous: PreviousSite | null;
}

export interface CompiledSite {
  id: string;
  manifest: ManifestSite;
  /** Its part of the preview manifest; null when it has no drafts nor draft-only images. */
  preview: PreviewSite | null;
  published: number;
  drafts: number;
  rendered: number;
  reused: number;
}

/** Bounds memory: bodies are rendered, written and dropped this many at a time. */
export const CHUNK = 256;
/**
 * List items are kept until the list is written: each in a buffer of its own (TextEncoder), not a
 * slice of Buffer's shared pool (64 KiB slabs on Node 24), which the compressed bodies fill
 * meanwhile: an item there would keep a whole slab of them alive (80 MiB at 4,000 articles).
 */
const UTF8 = new TextEncoder();
/** Articles written between two looks at the event loop (~30 ms of this thread's work). */
const YIELD_EVERY = 64;

export async function compileSite(loaded: LoadedSite, deps: CompileDeps, issues: ContentIssue[]): Promise<CompiledSite> {
  const { site, authors } = loaded;
  const images = createImageResolver(site.id, loaded.images, deps.publicUrl, deps.imageHashes);
  const published = new Map<string, string>(); // slug → title, for `related`
  for (const a of loaded.articles) if (a.meta.status === 'published') published.set(a.meta.slug, a.meta.title);

  // The list is assembled from each item's JSON: an unchanged item is never parsed or re-serialized.
  const items: ListEntry[] = [];
  const entries: Record<string, ManifestArticle> = {};
  const drafts: Record<string, PreviewDraft> = {};
  const usedImages = new Map<string, PublishedImage>();
  // Images drafts use: those no published article uses go to the preview tree only.
  const draftImages = new Map<string, PublishedImage>();
  const useImage = (sitePath: string) => {
    const img = images.resolve(sitePath);
    if (img) usedImages.set(sitePath, img);
    return img;
  };
  const useDraftImage = (sitePath: string) => {
    const img = images.resolve(sitePath);
    if (img) draftImages.set(sitePath, img);
    return img;
  };
  const todo: { source: ArticleSource; checkKey: string; inputKey: string }[] = [];
  let reused = 0;

  const keysOf = articleKeysOf(loaded, { publicUrl: deps.publicUrl, dates: deps.dates, memo: deps.keys, published });

  for (const source of loaded.articles) {
    const { meta } = source;
    const { checkKey, inputKey } = keysOf(source);
    if (meta.status === 'published') checkExpiryAgainstHistory(source, deps.dates.get(source.file), issues);
    if (meta.status !== 'published') {
      // A draft's preview files (src/snapshot/preview-view.ts) are taken over like a published
      // article's when nothing they depend on changed.
      const draft = deps.previous?.drafts?.drafts[meta.slug];
      const problems = deps.checked.get(checkKey);
      if (problems && draft?.inputKey === inputKey) {
        reportProblems(source, problems, issues);
        draft.images.forEach(useDraftImage);
        drafts[meta.slug] = draft;
        reused++;
      } else todo.push({ source, checkKey, inputKey });
      continue;
    }
    const before = deps.previous?.site.articles[meta.slug];
    const item = deps.previous?.items.get(meta.slug);
    if (before?.inputKey === inputKey && item) {
      // Its files are taken over from the current dist/ (the writer completes the tree from the manifest).
      before.images.forEach(useImage);
      const problems = deps.checked.get(checkKey) ?? [];
      reportProblems(source, problems, issues);
      deps.checked.set(checkKey, problems);
      items.push({ slug: meta.slug, kind: before.kind, publishedAt: before.publishedAt, updatedAt: before.updatedAt, json: item });
      entries[meta.slug] = before;
      reused++;
    } else todo.push({ source, checkKey, inputKey });
  }

  const renderChunk = (start: number) => {
    const chunk = todo.slice(start, start + CHUNK);
    const inputs: RenderInput[] = chunk.map(({ source }) => ({
      markdown: readMarkdown(source),
      lang: source.meta.lang ?? site.lang,
      articleDir: path.posix.dirname(source.sitePath),
      bodyLine: source.bodyLine,
      resolveImage: images.url,
    }));
    return { chunk, inputs, outputs: renderWithCache(inputs, deps, site.id, loaded) };
  };
  // Two chunks are under way at a time: while this thread turns one into JSON and writes it (each
  // article as soon as its batch is rendered), the next is already read and queued, so the render
  // workers do not wait for this thread, nor this thread for a whole chunk: the build's last
  // chunk is written while it renders, not after.
  const startChunk = (start: number) => (start < todo.length ? renderChunk(start) : null);
  // Loading left its garbage (every file's text and front matter) in this heap; collected now, it
  // does not add to the peak while the first chunks and the workers' heaps grow.
  if (todo.length > CHUNK) collectGarbage();
  // Published bodies are also stored compressed (body-encodings.ts), made while the build goes on.
  const writer = deps.writer;
  const encoder = writer && createExportEncoder((rel, bytes) => writer.write(rel, bytes));
  const ahead = [startChunk(0), startChunk(CHUNK)];
  for (let start = 0; start < todo.length; start += CHUNK) {
    const { chunk, inputs, outputs } = ahead.shift()!;
    if (start > 0) collectGarbage(); // the previous chunk's garbage: see collect-garbage.ts
    for (let i = 0; i < chunk.length; i++) {
      // Now and then the render workers' answers are taken, so they get their next batches.
      if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise(setImmediate);
      const { source, checkKey, inputKey } = chunk[i]!;
      const out = await outputs[i]!;
      if (!renderFailed(out.problems)) deps.checked.set(checkKey, out.problems);
      reportProblems(source, out.problems, issues);
      const { meta } = source;
      const use = meta.status === 'published' ? useImage : useDraftImage;
      const frontImage = meta.image?.kind === 'file' ? use(meta.image.sitePath) : undefined;
      out.images.forEach(use);
      const body = articleBody({
        meta,
        siteLang: site.lang,
        html: out.html,
        markdown: inputs[i]!.markdown,
        imageFileUrl: frontImage?.url ?? null,
        related: relatedArticles(meta, published),
        author: meta.author ? (authors.get(meta.author) ?? null) : null,
        dates: articleDates(meta, deps.dates.get(source.file)),
      });
      const item = toListItem(body, chooseExcerpt(meta, out.excerpt));
      // Each body is encoded to UTF-8 once, and those bytes are hashed, written and compressed.
      const bodyBytes = Buffer.from(JSON.stringify(body));
      const articleImages = [...new Set([...(meta.image?.kind === 'file' ? [meta.image.sitePath] : []), ...out.images])];
      if (meta.status !== 'published') {
        // Drafts go to the preview tree only: no webhook payload, not in the list, not in dist/.
        const itemJson = JSON.stringify(item);
        deps.preview?.write(previewArticleFile(site.id, meta.slug), bodyBytes);
        deps.preview?.write(previewItemFile(site.id, meta.slug), itemJson);
        drafts[meta.slug] = {
          file: source.sitePath,
          sourceHash: source.hash,
          inputKey,
          bodyHash: hashBytes(bodyBytes),
          itemHash: hashBytes(itemJson),
          kind: meta.kind,
          publishedAt: body.publishedAt,
          updatedAt: body.updatedAt,
          ...(meta.expiresAt ? { expiresAt: meta.expiresAt } : {}),
          images: articleImages,
        };
        continue;
      }
      // Only hashed: publish makes it again from the stored body (a file per article cost a
      // cold build more than making it again costs a publish). Hashed as a string: its bytes are
      // made and freed outside the JS heap (a Buffer here waits for a collection, ~20 KB an article).
      const payloadJson = webhookArticleJson(body);
      items.push({ slug: meta.slug, kind: meta.kind, publishedAt: body.publishedAt, updatedAt: body.updatedAt, json: UTF8.encode(JSON.stringify(item)) });
      const entry: ManifestArticle = (entries[meta.slug] = {
        file: source.sitePath,
        sourceHash: source.hash,
        inputKey,
        bodyHash: hashBytes(bodyBytes),
        payloadHash: hashBytes(payloadJson),
        kind: meta.kind,
        publishedAt: body.publishedAt,
        updatedAt: body.updatedAt,
        ...(meta.expiresAt ? { expiresAt: meta.expiresAt } : {}),
        images: articleImages,
        ...(body.related.length ? { related: body.related.map((r) => r.slug) } : {}),
      });
      if (deps.writer && encoder) {
        deps.writer.write(articleFile(site.id, meta.slug), bodyBytes);
        encoder.add(articleFile(site.id, meta.slug), bodyBytes, (codings) => {
          if (codings.length) entry.encodings = codings;
        });
      }
    }
    // Rendered: the chunk after next is read and queued, and the render cache written (a transaction per chunk).
    ahead.push(startChunk(start + 2 * CHUNK));
    deps.renderCache.flush();
    await encoder?.flush(CHUNK); // bounds the bodies held for compression to about a chunk
  }

  items.sort(newestFirst);
  const itemJson = items.map((i) => i.json);
  const listParts = listBodyParts(site, itemJson);
  const listHash = hashParts(listParts);
  deps.writer?.writeParts(listFile(site.id), listParts);
  let listEncodings: ContentCoding[] = [];
  encoder?.add(listFile(site.id), Buffer.concat(listParts), (codings) => (listEncodings = codings));
  if (deps.writer) {
    const index = makeListIndex(listHash, items, listItemSpans(site, itemJson));
    deps.writer.write(listIndexFile(site.id), JSON.stringify(index));
  }
  const imageNames: Record<string, string> = {};
  for (const img of usedImages.values()) {
    if (deps.writer) assertInsideFolder(img.source, path.join(site.dir, 'images'), CONTENT_LIMITS.imageBytes);
    deps.writer?.copyNamedByContent(imageFile(site.id, img.distName), img.source);
    imageNames[img.sitePath] = img.distName;
  }
  const previewImages: Record<string, string> = {};
  for (const img of draftImages.values()) {
    if (usedImages.has(img.sitePath)) continue; // published anyway
    if (deps.writer) assertInsideFolder(img.source, path.join(site.dir, 'images'), CONTENT_LIMITS.imageBytes);
    deps.preview?.copyNamedByContent(previewImageFile(site.id, img.distName), img.source);
    previewImages[img.sitePath] = img.distName;
  }
  await encoder?.flush();
  const sortedEntries = Object.fromEntries(items.map((i) => [i.slug, entries[i.slug]!]));
  return {
    id: site.id,
    manifest: {
      name: site.name,
      lang: site.lang,
      url: site.url,
      articlePath: site.articlePath,
      listHash,
      ...(listEncodings.length ? { listEncodings } : {}),
      articles: sortedEntries,
      images: imageNames,
    },
    preview: Object.keys(drafts).length || Object.keys(previewImages).length
      ? { drafts: Object.fromEntries(Object.keys(drafts).sort().map((slug) => [slug, drafts[slug]!])), images: previewImages }
      : null,
    published: items.length,
    drafts: loaded.articles.length - items.length,
    rendered: todo.length,
    reused,
  };
}

interface ListEntry {
  slug: string;
  kind: string;
  publishedAt: string | null;
  updatedAt: string | null;
  json: Uint8Array;
}

/**
 * An `expiresAt` at or before the date git gives as first published: the article would never be
 * served.
 */
function checkExpiryAgainstHistory(source: ArticleSource, dates: FileDates | undefined, issues: ContentIssue[]): void {
  const fromGit = expiryNotAfterHistory(source.meta, dates);
  if (fromGit === null) return;
  issues.push(
    issue(source.file, fieldPlace(source.meta, 'expiresAt'), 'CONTENT_EXPIRY_BEFORE_PUBLISH', `\`expiresAt\` (${source.meta.expiresAt}) is not after the date the article was first published (${fromGit}, from git history)`, {
      hint: 'set expiresAt later, or remove it',
    }),
  );
}

function reportProblems(source: ArticleSource, problems: RenderProblem[], issues: ContentIssue[]): void {
  for (const p of problems) issues.push(issue(source.file, p, p.code, p.message));
}

/**
 * Each input's output, from the render cache or rendered (the cache is given the new ones as they
 * come; flushed by the caller), one promise per input.
 */
function renderWithCache(inputs: RenderInput[], deps: CompileDeps, siteId: string, loaded: LoadedSite): Promise<RenderOutput>[] {
  const cache = deps.renderCache;
  const keys = inputs.map((input) => cache.key(input));
  const outputs: (RenderOutput | Promise<RenderOutput> | undefined)[] = inputs.map((input, i) => cache.get(keys[i]!, input));
  const missing = outputs.flatMap((o, i) => (o ? [] : [i]));
  if (missing.length) {
    const todo = missing.map((i) => inputs[i]!);
    // Many on the workers; a few here, with the pipeline loaded on first use (a build with nothing to
    // render never loads it).
    const rendered =
      deps.pool && todo.length >= POOL_THRESHOLD
        ? deps.pool.renderEach(siteId, deps.publicUrl, loaded.images, todo.map(({ resolveImage: _, ...rest }) => rest))
        : renderHere(todo);
    missing.forEach((inputIndex, j) => {
      outputs[inputIndex] = rendered[j]!.then((output) => {
        if (!renderFailed(output.problems)) cache.set(keys[inputIndex]!, output, inputs[inputIndex]!);
        return output;
      });
    });
  }
  return outputs.map((o) => {
    const output = Promise.resolve(o!);
    output.catch(() => {}); // awaited in order; one left behind by a failed build must not be unhandled
    return output;
  });
}

function renderHere(inputs: RenderInput[]): Promise<RenderOutput>[] {
  const all = import('../render/render-markdown.ts').then(({ renderMarkdown }) => inputs.map(renderMarkdown));
  return inputs.map((_, i) => all.then((outputs) => outputs[i]!));
}
