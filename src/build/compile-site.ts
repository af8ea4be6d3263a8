// One loaded site → the exact API bodies and webhook payloads of its published articles.
import { issue, type ContentIssue } from '../content/issues.ts';
import type { LoadedSite } from '../content/load-content.ts';
import type { FileDates } from '../content/git-history.ts';
import type { ArticleSource } from '../content/model.ts';
import { renderMarkdown, type RenderInput, type RenderOutput } from '../render/render-markdown.ts';
import {
  newestFirst,
  toListItem,
  toWebhookArticle,
  type ArticleBody,
  type ArticleListBody,
  type ArticleListItem,
  type WebhookArticle,
} from './api-shapes.ts';
import { createImageResolver, type ImageHashCache, type PublishedImage } from './images.ts';
import type { RenderCache } from './render-cache.ts';
import { POOL_THRESHOLD, type RenderPool } from './render-pool.ts';
import type { ImageFile } from '../content/load-content.ts';
import path from 'node:path';

export interface CompiledArticle {
  source: ArticleSource;
  body: ArticleBody;
  listItem: ArticleListItem;
  webhook: WebhookArticle;
}

export interface CompiledSite {
  loaded: LoadedSite;
  /** Published articles, newest first. */
  articles: CompiledArticle[];
  list: ArticleListBody;
  images: PublishedImage[];
  drafts: ArticleSource[];
}

export interface CompileDeps {
  publicUrl: string;
  dates: Map<string, FileDates>;
  renderCache: RenderCache;
  imageHashes: ImageHashCache;
  /** Worker threads for large batches; without it everything renders in this thread. */
  pool?: RenderPool;
}

export async function compileSite(loaded: LoadedSite, deps: CompileDeps, issues: ContentIssue[]): Promise<CompiledSite> {
  const { site, authors } = loaded;
  const images = createImageResolver(site.id, loaded.images, deps.publicUrl, deps.imageHashes);
  const inputs: RenderInput[] = loaded.articles.map((a) => ({
    markdown: a.markdown,
    lang: a.meta.lang ?? site.lang,
    articleDir: path.posix.dirname(a.sitePath),
    bodyLine: a.bodyLine,
    resolveImage: images.url,
  }));
  const outputs = await renderWithCache(inputs, deps, site.id, loaded.images);

  const published = new Map<string, string>(); // slug → title, for `related`
  for (const a of loaded.articles) if (a.meta.status === 'published') published.set(a.meta.slug, a.meta.title);

  const articles: CompiledArticle[] = [];
  const usedImages = new Map<string, PublishedImage>();
  loaded.articles.forEach((source, i) => {
    const out = outputs[i]!;
    for (const p of out.problems) issues.push(issue(source.file, p, p.code, p.message));
    if (source.meta.status !== 'published') return;
    const { meta } = source;
    const dates = deps.dates.get(source.file);
    let imageUrl: string | null = null;
    if (meta.image?.kind === 'url') imageUrl = meta.image.url;
    if (meta.image?.kind === 'file') {
      const img = images.resolve(meta.image.sitePath);
      if (img) usedImages.set(img.sitePath, img);
      imageUrl = img?.url ?? null;
    }
    for (const sitePath of out.images) {
      const img = images.resolve(sitePath);
      if (img) usedImages.set(sitePath, img);
    }
    const author = meta.author ? authors.get(meta.author) : undefined;
    const body: ArticleBody = {
      slug: meta.slug,
      title: meta.title,
      metaDescription: meta.metaDescription,
      lang: meta.lang ?? site.lang,
      html: out.html,
      markdown: source.markdown,
      imageUrl,
      imageAlt: meta.imageAlt,
      publishedAt: meta.publishedAt ?? dates?.publishedAt ?? null,
      updatedAt: meta.updatedAt ?? dates?.updatedAt ?? null,
      kind: meta.kind,
      sourceUrl: meta.sourceUrl,
      related: meta.related
        .filter((r) => r.slug !== meta.slug && published.has(r.slug))
        .map((r) => ({ slug: r.slug, title: published.get(r.slug)! })),
      author: author ? { name: author.name, bio: author.bio, url: author.url } : null,
    };
    const excerpt = meta.excerpt ?? (out.excerpt || meta.metaDescription || '');
    articles.push({ source, body, listItem: toListItem(body, excerpt), webhook: toWebhookArticle(body) });
  });
  articles.sort((a, b) => newestFirst(a.listItem, b.listItem));
  return {
    loaded,
    articles,
    list: { site: { name: site.name, lang: site.lang }, total: articles.length, articles: articles.map((a) => a.listItem) },
    images: [...usedImages.values()],
    drafts: loaded.articles.filter((a) => a.meta.status !== 'published'),
  };
}

async function renderWithCache(
  inputs: RenderInput[],
  deps: CompileDeps,
  siteId: string,
  siteImages: Map<string, ImageFile>,
): Promise<RenderOutput[]> {
  const cache = deps.renderCache;
  const keys = inputs.map((input) => cache.key(input));
  const outputs: (RenderOutput | undefined)[] = inputs.map((input, i) => cache.get(keys[i]!, input));
  const missing = outputs.flatMap((o, i) => (o ? [] : [i]));
  if (missing.length > 0) {
    const todo = missing.map((i) => inputs[i]!);
    const rendered =
      deps.pool && todo.length >= POOL_THRESHOLD
        ? await deps.pool.render(siteId, deps.publicUrl, siteImages, todo.map(({ resolveImage: _, ...rest }) => rest))
        : todo.map(renderMarkdown);
    missing.forEach((inputIndex, j) => {
      outputs[inputIndex] = rendered[j]!;
      cache.set(keys[inputIndex]!, rendered[j]!, inputs[inputIndex]!);
    });
  }
  return outputs as RenderOutput[];
}
