// One loaded site → its part of dist/: the exact API bodies of its published articles (webhook
// payloads are made from them), written as they are made; its drafts to the build's preview tree,
// never to dist/. An article whose inputs are all unchanged since the previous build is taken
// over from the previous dist/ (a draft: the previous preview tree) without being read or rendered.
// What an article is comes from src/articles/; how fast it is made (chunks, workers, collections,
// compression) from render-in-chunks.ts and export-encoder.ts; what is written from site-output.ts.
import {
  articleLinkProblems,
  articleLinksOf,
  siteArticles,
  type ArticleLink,
  type SiteArticles,
} from '../content/article-links.ts';
import { issue, type ContentIssue } from '../content/issues.ts';
import type { LoadedSite } from '../content/load-content.ts';
import { fieldPlace, type ArticleSource } from '../content/model.ts';
import type { FileDates } from '../git/git-history.ts';
import { renderFailed, type RenderProblem } from '../render/render-context.ts';
import type { RenderOutput } from '../render/render-markdown.ts';
import { articleDates, expiryNotAfterHistory } from '../articles/dates.ts';
import { chooseExcerpt } from '../articles/excerpt.ts';
import { articleBody, relatedArticles, toListItem } from '../articles/shapes.ts';
import type { ListItems } from '../export/list-body.ts';
import type { ManifestSite } from '../export/manifest.ts';
import type { PreviewSite } from '../export/preview-tree.ts';
import type { ExportWriter } from '../export/writer/export-writer.ts';
import type { PreviewWriter } from '../export/writer/preview-writer.ts';
import { articleKeysOf, type ArticleKeyMemo, type ArticleKeys } from './article-keys.ts';
import { createExportEncoder } from './export-encoder.ts';
import { ImageUse } from './image-use.ts';
import { createImageResolver, type ImageHashCache } from './images.ts';
import type { RenderCache } from './render-cache.ts';
import { CHUNK, renderInChunks } from './render-in-chunks.ts';
import type { RenderPool } from './render-pool.ts';
import { SiteOutput } from './site-output.ts';

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
  /** The article links of each body: the last build's by input key, and this build's as they are found. */
  links: { known: ReadonlyMap<string, ArticleLink[]>; found: Map<string, ArticleLink[]> };
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

interface Job {
  source: ArticleSource;
  checkKey: string;
  inputKey: string;
}

/** What the steps of one site's compilation share. */
interface SiteRun {
  loaded: LoadedSite;
  deps: CompileDeps;
  issues: ContentIssue[];
  images: ImageUse;
  /** Slug → title of the site's published articles, for `related`. */
  published: Map<string, string>;
  /** Every article of the site, drafts included, for the link checks. */
  articles: SiteArticles;
  output: SiteOutput;
}

export async function compileSite(
  loaded: LoadedSite,
  deps: CompileDeps,
  issues: ContentIssue[],
): Promise<CompiledSite> {
  const { site } = loaded;
  const resolver = createImageResolver(site.id, loaded.images, deps.publicUrl, deps.imageHashes);
  const published = new Map<string, string>();
  for (const a of loaded.articles) if (a.meta.status === 'published') published.set(a.meta.slug, a.meta.title);
  // Published bodies are also stored compressed (body-encodings.ts), made while the build goes on.
  const writer = deps.writer;
  const encoder = writer && createExportEncoder((rel, bytes) => writer.write(rel, bytes));
  const run: SiteRun = {
    loaded,
    deps,
    issues,
    images: new ImageUse(resolver.resolve),
    published,
    articles: siteArticles(site.id, loaded.articles),
    output: new SiteOutput(site, writer, deps.preview, encoder),
  };

  const keysOf = articleKeysOf(loaded, { publicUrl: deps.publicUrl, dates: deps.dates, memo: deps.keys, published });
  const { todo, reused } = takeOverUnchanged(run, keysOf);
  const rendering = {
    siteId: site.id,
    siteLang: site.lang,
    publicUrl: deps.publicUrl,
    images: loaded.images,
    resolveImage: resolver.url,
    renderCache: deps.renderCache,
    pool: deps.pool,
  };
  // After each chunk, the bodies held for compression are bounded to about a chunk.
  await renderInChunks(
    todo,
    rendering,
    (job, markdown, out) => compileRendered(run, job, markdown, out),
    async () => encoder?.flush(CHUNK),
  );

  const { output } = run;
  const list = output.writeList();
  const copied = run.images.copy(site, deps.writer, deps.preview);
  await encoder?.flush();
  const { drafts } = output;
  return {
    id: site.id,
    manifest: {
      name: site.name,
      lang: site.lang,
      url: site.url,
      articlePath: site.articlePath,
      verifyAfterDelivery: site.verifyAfterDeliveryMs ?? false,
      listHash: list.hash,
      ...(list.encodings.length ? { listEncodings: list.encodings } : {}),
      articles: output.manifestArticles(),
      images: copied.published,
    },
    preview:
      Object.keys(drafts).length || Object.keys(copied.preview).length
        ? {
            drafts: Object.fromEntries(
              Object.keys(drafts)
                .sort()
                .map((slug) => [slug, drafts[slug]!]),
            ),
            images: copied.preview,
          }
        : null,
    published: output.published,
    drafts: loaded.articles.length - output.published,
    rendered: todo.length,
    reused,
  };
}

/**
 * Takes over every article whose inputs are those of the previous build (its files as they are,
 * its problems as they were found); the others are to be rendered.
 */
function takeOverUnchanged(
  run: SiteRun,
  keysOf: (source: ArticleSource) => ArticleKeys,
): { todo: Job[]; reused: number } {
  const { deps, issues, images, output } = run;
  const todo: Job[] = [];
  let reused = 0;
  for (const source of run.loaded.articles) {
    const { meta } = source;
    const { checkKey, inputKey } = keysOf(source);
    if (meta.status === 'published') checkExpiryAgainstHistory(source, deps.dates.get(source.file), issues);
    // Its problems and links must be known to take it over: they are told again, unrendered.
    const links = deps.links.known.get(inputKey);
    if (meta.status !== 'published') {
      // A draft's preview files (src/snapshot/preview-view.ts) are taken over like a published
      // article's when nothing they depend on changed.
      const draft = deps.previous?.drafts?.drafts[meta.slug];
      const problems = deps.checked.get(checkKey);
      if (problems && links && draft?.inputKey === inputKey) {
        reportProblems(source, problems, issues);
        checkLinks(run, source, inputKey, links);
        draft.images.forEach(images.byDraft);
        output.keepDraft(meta.slug, draft);
        reused++;
      } else todo.push({ source, checkKey, inputKey });
      continue;
    }
    const before = deps.previous?.site.articles[meta.slug];
    const item = deps.previous?.items.get(meta.slug);
    const problems = deps.checked.get(checkKey);
    if (before?.inputKey === inputKey && item && problems && links) {
      // Its files are taken over from the current dist/ (the writer completes the tree from the manifest).
      before.images.forEach(images.byPublished);
      reportProblems(source, problems, issues);
      checkLinks(run, source, inputKey, links);
      output.keepPublished(meta.slug, before, item);
      reused++;
    } else todo.push({ source, checkKey, inputKey });
  }
  return { todo, reused };
}

/** A rendered article: its problems told, its body and list item made (src/articles/) and written. */
function compileRendered(run: SiteRun, { source, checkKey, inputKey }: Job, markdown: string, out: RenderOutput): void {
  const { deps, images } = run;
  const { site, authors } = run.loaded;
  if (!renderFailed(out.problems)) deps.checked.set(checkKey, out.problems);
  reportProblems(source, out.problems, run.issues);
  checkLinks(run, source, inputKey, articleLinksOf(out.links, source.sitePath, site));
  const { meta } = source;
  const use = meta.status === 'published' ? images.byPublished : images.byDraft;
  const frontImage = meta.image?.kind === 'file' ? use(meta.image.sitePath) : undefined;
  out.images.forEach(use);
  const body = articleBody({
    meta,
    siteLang: site.lang,
    html: out.html,
    markdown,
    imageFileUrl: frontImage?.url ?? null,
    related: relatedArticles(meta, run.published),
    author: meta.author ? (authors.get(meta.author) ?? null) : null,
    dates: articleDates(meta, deps.dates.get(source.file)),
  });
  const item = toListItem(body, chooseExcerpt(meta, out.excerpt));
  const articleImages = [...new Set([...(meta.image?.kind === 'file' ? [meta.image.sitePath] : []), ...out.images])];
  run.output.add({ source, inputKey, body, item, images: articleImages });
}

/**
 * An `expiresAt` at or before the date git gives as first published: the article would never be
 * served.
 */
function checkExpiryAgainstHistory(source: ArticleSource, dates: FileDates | undefined, issues: ContentIssue[]): void {
  const fromGit = expiryNotAfterHistory(source.meta, dates);
  if (fromGit === null) return;
  issues.push(
    issue(
      source.file,
      fieldPlace(source.meta, 'expiresAt'),
      'CONTENT_EXPIRY_BEFORE_PUBLISH',
      `\`expiresAt\` (${source.meta.expiresAt}) is not after the date the article was first published (${fromGit}, from git history)`,
      {
        hint: 'set expiresAt later, or remove it',
      },
    ),
  );
}

function reportProblems(source: ArticleSource, problems: RenderProblem[], issues: ContentIssue[]): void {
  for (const p of problems)
    issues.push(issue(source.file, p, p.code, p.message, p.severity ? { severity: p.severity } : {}));
}

/** The body's links to articles checked against the site as it is now, and kept for the next build. */
function checkLinks(run: SiteRun, source: ArticleSource, inputKey: string, links: ArticleLink[]): void {
  run.deps.links.found.set(inputKey, links);
  run.issues.push(...articleLinkProblems(source, links, run.articles));
}
