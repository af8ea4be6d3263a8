// content/ → dist/: load and check, date from git, render (cached), then write atomically.
import path from 'node:path';
import { readGitDates, type DateQuery } from '../content/git-history.ts';
import { hasErrors, sortIssues, type ContentIssue } from '../content/issues.ts';
import { loadContent, type ParseCache } from '../content/load-content.ts';
import { RENDERER_VERSION } from '../render/render-markdown.ts';
import { toIsoUtc } from '../content/dates.ts';
import { compileSite, type CompileDeps, type CompiledSite } from './compile-site.ts';
import type { ImageHashCache } from './images.ts';
import { buildIdOf, hashBytes, MANIFEST_FORMAT, readManifest, type Manifest, type ManifestSite } from './manifest.ts';
import { createRenderCache, type RenderCache } from './render-cache.ts';
import { createRenderPool, type RenderPool } from './render-pool.ts';
import { writeDistAtomically, type DistCopy, type DistFile } from './write-dist.ts';

export interface BuildSettings {
  contentDir: string;
  distDir: string;
  stateDir: string;
  publicUrl: string;
}

/** Long-lived caches a watcher keeps between builds; a one-shot build makes fresh ones. */
export interface BuildCaches {
  parse: ParseCache;
  render: RenderCache;
  imageHashes: ImageHashCache;
}

export interface BuildResult {
  ok: boolean;
  issues: ContentIssue[];
  /** The manifest now in dist/ (the previous one when the build failed). */
  manifest: Manifest | null;
  /** Whether dist/ was rewritten. */
  written: boolean;
  sites: CompiledSite[];
  stats: { articles: number; published: number; rendered: number; cached: number; ms: number };
}

export function createBuildCaches(stateDir: string | null): BuildCaches {
  return {
    parse: new Map(),
    render: createRenderCache(stateDir ? path.join(stateDir, 'cache', 'render') : null),
    imageHashes: new Map(),
  };
}

export async function buildDist(
  settings: BuildSettings,
  caches: BuildCaches = createBuildCaches(settings.stateDir),
  options: { pool?: RenderPool } = {},
): Promise<BuildResult> {
  const pool = options.pool ?? createRenderPool();
  try {
    return await build(settings, caches, pool);
  } finally {
    if (!options.pool) await pool.close();
  }
}

async function build(settings: BuildSettings, caches: BuildCaches, pool: RenderPool): Promise<BuildResult> {
  const started = performance.now();
  const before = { ...caches.render.stats };
  const content = await loadContent(settings.contentDir, caches.parse);
  const issues = content.issues;

  const queries: DateQuery[] = content.sites.flatMap((s) =>
    s.articles
      .filter((a) => a.meta.status === 'published' && (!a.meta.publishedAt || !a.meta.updatedAt))
      .map((a) => ({ file: a.file, mtimeMs: a.mtimeMs, wantPublishedAt: !a.meta.publishedAt })),
  );
  const dates = queries.length ? await readGitDates(settings.contentDir, queries) : new Map();
  const deps: CompileDeps = {
    publicUrl: settings.publicUrl,
    dates,
    renderCache: caches.render,
    imageHashes: caches.imageHashes,
    pool,
  };
  const sites: CompiledSite[] = [];
  for (const loaded of content.sites) sites.push(await compileSite(loaded, deps, issues));

  const stats = {
    articles: content.sites.reduce((n, s) => n + s.articles.length, 0),
    published: sites.reduce((n, s) => n + s.articles.length, 0),
    rendered: caches.render.stats.misses - before.misses,
    cached: caches.render.stats.hits - before.hits,
    ms: 0,
  };
  const sorted = sortIssues(issues);
  const previous = readManifest(settings.distDir);
  if (hasErrors(sorted)) {
    stats.ms = performance.now() - started;
    return { ok: false, issues: sorted, manifest: previous, written: false, sites, stats };
  }

  const { files, copies, manifest } = assembleDist(sites, settings.publicUrl);
  const written = previous?.buildId !== manifest.buildId;
  if (written) writeDistAtomically(settings.distDir, files, copies, manifest);
  stats.ms = performance.now() - started;
  return { ok: true, issues: sorted, manifest: written ? manifest : previous, written, sites, stats };
}

function assembleDist(sites: CompiledSite[], publicUrl: string) {
  const files: DistFile[] = [];
  const copies: DistCopy[] = [];
  const manifestSites: Record<string, ManifestSite> = {};
  for (const compiled of sites) {
    const { site } = compiled.loaded;
    const listJson = JSON.stringify(compiled.list);
    files.push({ path: `${site.id}/articles.json`, data: listJson });
    const articles: ManifestSite['articles'] = {};
    for (const a of compiled.articles) {
      const bodyJson = JSON.stringify(a.body);
      const payloadJson = JSON.stringify(a.webhook);
      files.push({ path: `${site.id}/articles/${a.body.slug}.json`, data: bodyJson });
      files.push({ path: `${site.id}/webhooks/${a.body.slug}.json`, data: payloadJson });
      articles[a.body.slug] = {
        file: a.source.sitePath,
        sourceHash: a.source.hash,
        bodyHash: hashBytes(bodyJson),
        payloadHash: hashBytes(payloadJson),
        kind: a.body.kind,
        publishedAt: a.body.publishedAt,
        updatedAt: a.body.updatedAt,
      };
    }
    const images: Record<string, string> = {};
    for (const img of compiled.images) {
      copies.push({ path: `${site.id}/images/${img.distName}`, source: img.source });
      images[img.sitePath] = img.distName;
    }
    manifestSites[site.id] = {
      name: site.name,
      lang: site.lang,
      url: site.url,
      articlePath: site.articlePath,
      listHash: hashBytes(listJson),
      articles,
      images,
    };
  }
  const body = { format: MANIFEST_FORMAT, renderer: RENDERER_VERSION, publicUrl, sites: manifestSites } as const;
  const manifest: Manifest = { format: MANIFEST_FORMAT, buildId: buildIdOf(body), builtAt: toIsoUtc(new Date()), renderer: RENDERER_VERSION, publicUrl, sites: manifestSites };
  return { files, copies, manifest };
}
