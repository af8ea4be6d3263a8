// content/ → dist/: load and check, date from git, render (cached), write atomically.
// Work is skipped wherever its inputs are unchanged: a build whose inputs all equal those of
// the build in dist/ does nothing; unchanged articles are reused from the previous dist/.
// Drafts go to the build's preview tree in the state dir (src/export/preview-trees.ts), in place
// under the build id before dist/ is swapped, so the dist/ a reader sees always has its drafts.
import path from 'node:path';
import { toIsoUtc } from '../content/dates.ts';
import { datesFromHistory } from '../articles/dates.ts';
import { readGitDates, type DateQuery } from '../git/git-history.ts';
import { locateContentRepository, type RepositoryLookup } from '../git/repository.ts';
import type { ArticleLink } from '../content/article-links.ts';
import { hasErrors, sortIssues, type ContentIssue } from '../content/issues.ts';
import { loadContent, type LoadedContent, type LoadedSite } from '../content/load-content.ts';
import { keyGenerationsToRecord } from '../keys/key-record.ts';
import { RENDERER_VERSION } from '../render/renderer-version.ts';
import { linksOf, loadBuildState, saveBuildState, type BuildState } from './build-state.ts';
import { compileSite, type CompiledSite, type PreviousSite } from './compile-site.ts';
import { ExportWriter } from '../export/writer/export-writer.ts';
import { startBuildHelper, type HelperSlot } from '../export/writer/build-helper.ts';
import { recoverInterruptedSwap } from '../export/writer/work-dir.ts';
import { hashBytes } from '../export/content-hash.ts';
import { readListItems, readManifest } from '../export/export-files.ts';
import { MANIFEST_FORMAT, type Manifest, type ManifestSite } from '../export/manifest.ts';
import { PREVIEW_FORMAT, type PreviewManifest, type PreviewSite } from '../export/preview-tree.ts';
import { readPreviewManifest, sweepPreviewTrees } from '../export/preview-trees.ts';
import { previewRootOf } from '../config/state-layout.ts';
import { PreviewWriter } from '../export/writer/preview-writer.ts';
import { holdYoungGeneration } from './young-generation.ts';
import { createRenderCache, type RenderCache } from './render-cache.ts';
import { createRenderPool, POOL_THRESHOLD, type RenderPool } from './render-pool.ts';

export interface BuildSettings {
  contentDir: string;
  distDir: string;
  stateDir: string;
  publicUrl: string;
  /** Tests only: see QuireConfig.testSwapPauseFile. */
  testSwapPauseFile?: string | null;
}

/** Caches a watcher keeps between builds; a one-shot build loads them from the state dir. */
export interface BuildCaches {
  state: BuildState;
  render: RenderCache;
}

export interface BuildResult {
  ok: boolean;
  issues: ContentIssue[];
  /** Every site as this build loaded it. */
  loaded: LoadedSite[];
  /** The manifest now in dist/ (the previous one when the build failed or changed nothing). */
  manifest: Manifest | null;
  /** Whether dist/ was rewritten. */
  written: boolean;
  /**
   * The folder dist/ was restored from before this build, when a build killed in the middle of
   * its swap had left no dist/; null normally.
   */
  recovered: string | null;
  /**
   * Waits until the trees beside dist/ that this build replaced or found left over are deleted.
   * Not part of the build: without this wait the process may exit first, and the next build
   * deletes what is left.
   */
  cleanup(): Promise<void>;
  /** Per site: counts, and the slugs of drafts (kept out of dist/; publish tells withdrawn from deleted). */
  sites: { id: string; published: number; drafts: number; draftSlugs: string[] }[];
  stats: { articles: number; published: number; rendered: number; cached: number; reused: number; ms: number };
}

export function createBuildCaches(stateDir: string): BuildCaches {
  return { state: loadBuildState(stateDir), render: createRenderCache(stateDir) };
}

/**
 * For a build that writes nothing: the last build's state is read (it is never saved), and
 * renders are kept in memory only, since the render cache's file is written as it is used.
 */
function readOnlyCaches(stateDir: string): BuildCaches {
  return { state: loadBuildState(stateDir), render: createRenderCache(null) };
}

export interface BuildOptions {
  pool?: RenderPool;
  /**
   * false: compute what dist/ would hold (the manifest, with every hash) and every problem without
   * writing anything: not dist/, not the state dir (its caches included), not a dist/ a killed
   * build left missing; unchanged articles are taken from the current dist/ as in a normal build
   * (publish --dry-run, quire check).
   */
  write?: boolean;
  /**
   * The content folder's repository, when the caller located it already (publish reads the
   * commit from it while the build runs); otherwise the build locates it.
   */
  repository?: Promise<RepositoryLookup>;
}

export async function buildExport(
  settings: BuildSettings,
  warmCaches?: BuildCaches,
  options: BuildOptions = {},
): Promise<BuildResult> {
  const write = options.write ?? true;
  holdYoungGeneration(); // before any thread starts: see young-generation.ts
  // Before anything reads dist/ (or the helper sweeps leftovers): a dist/ a killed build left
  // missing is put back, so that a build failing on content leaves a tree to serve.
  const recovered = write ? recoverInterruptedSwap(settings.distDir) : null;
  // The helper thread first, so that deleting leftover trees overlaps loading the state.
  const helper = write ? startBuildHelper(settings.distDir) : null;
  let pool: RenderPool | undefined;
  try {
    // Inside the try: a build state that cannot be read must still let the helper thread end.
    const caches = warmCaches ?? (write ? createBuildCaches(settings.stateDir) : readOnlyCaches(settings.stateDir));
    pool = options.pool ?? createRenderPool();
    const repository = options.repository ?? locateContentRepository(settings.contentDir);
    // A pool of this build's own is closed as soon as the last site is rendered: its workers'
    // heaps would otherwise stay through the end of the build, when the list, the manifest and
    // the state are made and the build's memory peaks (docs/benchmarks.md, "Memory").
    const ownPool = options.pool ? null : pool;
    return {
      ...(await build(settings, caches, pool, write, helper, repository, () => ownPool?.close())),
      recovered,
      cleanup: () => helper?.current()?.waitUntilEnded() ?? Promise.resolve(),
    };
  } finally {
    helper?.current()?.finish(); // once its jobs are done
    if (!options.pool) await pool?.close();
  }
}

async function build(
  settings: BuildSettings,
  caches: BuildCaches,
  pool: RenderPool,
  write: boolean,
  helper: HelperSlot | null,
  repositoryLookup: Promise<RepositoryLookup>,
  renderingDone: () => Promise<void> | undefined,
): Promise<Omit<BuildResult, 'cleanup' | 'recovered'>> {
  const started = performance.now();
  const { state } = caches;
  const renderStats = { ...caches.render.stats };
  // Many new or changed articles and nothing cached mean many to render: the workers start while
  // the rest loads. With a render cache they start only if a chunk misses it (compileSite).
  const onManyChanged = () => {
    if (caches.render.isCold()) pool.warm();
  };
  const gitBefore = { head: state.git.head, published: state.git.published.size };
  const content = await loadContent(settings.contentDir, state.sources, { threshold: POOL_THRESHOLD, onManyChanged });
  // The content folder is checked for planted repositories before git is asked anything.
  const { repository, issues: repositoryIssues } = await repositoryLookup;
  const issues = content.issues;
  issues.push(...repositoryIssues);
  const loadedIssues = issues.length;
  const queries: DateQuery[] = content.sites.flatMap((s) =>
    s.articles.flatMap((a) => {
      const wanted = datesFromHistory(a.meta);
      return wanted ? [{ file: a.file, mtimeMs: a.mtimeMs, wantPublishedAt: wanted.publishedAt }] : [];
    }),
  );
  const dates = queries.length ? await readGitDates(repository, settings.contentDir, queries, state.git) : new Map();
  const previous = readManifest(settings.distDir);
  const previewRoot = previewRootOf(settings.stateDir);
  const previousPreview = previous ? readPreviewManifest(previewRoot, previous.buildId) : null;
  // A rotation changes the inputs: the next build records it (see keyGenerationsToRecord).
  const keyGenerations = keyGenerationsToRecord(settings.stateDir, previous?.keyGenerations);
  const inputs = inputsOf(content, dates, settings.publicUrl, keyGenerations);
  const articles = content.sites.reduce((n, s) => n + s.articles.length, 0);
  let stateSaved = false;
  const saveState = (compiledNothing = false) => {
    // A build that writes nothing (publish --dry-run) leaves the state dir as it is too.
    if (!write || stateSaved) return;
    const pruned = prune(state, content);
    stateSaved = true;
    // Nothing learnt: no file read, no entry dropped, git's history cache as it was loaded. Saving
    // it again would cost a large site a tenth of its rebuild (docs/benchmarks.md, "Rebuilds").
    const learnt =
      !compiledNothing ||
      pruned ||
      content.read > 0 ||
      state.git.head !== gitBefore.head ||
      state.git.published.size !== gitBefore.published;
    if (learnt) saveBuildState(settings.stateDir, state);
  };
  const finish = (
    result: Omit<BuildResult, 'stats' | 'issues' | 'cleanup' | 'loaded' | 'recovered'>,
    compiled: CompiledSite[],
    compiledNothing = false,
  ): Omit<BuildResult, 'cleanup' | 'recovered'> => {
    saveState(compiledNothing);
    return {
      ...result,
      issues: sortIssues(issues),
      loaded: content.sites,
      stats: {
        articles,
        published: compiled.length
          ? compiled.reduce((n, s) => n + s.published, 0)
          : result.sites.reduce((n, s) => n + s.published, 0),
        rendered: caches.render.stats.misses - renderStats.misses,
        cached: caches.render.stats.hits - renderStats.hits,
        reused: compiled.reduce((n, s) => n + s.reused, 0),
        ms: performance.now() - started,
      },
    };
  };

  // Nothing changed, and dist/'s drafts are in place (without them, as after a state dir was
  // lost, the build writes them again); what compiling these inputs found is told again.
  // The inputs name no folder: a project moved with its dist/ and state dir has the same ones.
  const compiledHere =
    state.compiled?.inputs === inputs && state.compiled.contentDir === path.resolve(settings.contentDir);
  if (!hasErrors(issues) && previous?.inputs === inputs && previousPreview && compiledHere) {
    issues.push(...state.compiled!.issues);
    const sites = Object.entries(previous.sites).map(([id, s]) => ({
      id,
      published: Object.keys(s.articles).length,
      drafts: (content.sites.find((l) => l.site.id === id)?.articles.length ?? 0) - Object.keys(s.articles).length,
      draftSlugs: draftSlugsOf(content, id),
    }));
    return finish({ ok: true, manifest: previous, written: false, sites }, [], true);
  }

  const writer =
    hasErrors(issues) || !write || !helper
      ? null
      : new ExportWriter(settings.distDir, helper, previous, settings.testSwapPauseFile ?? null);
  let preview: PreviewWriter | null = null;
  const compiled: CompiledSite[] = [];
  const links = { known: linksOf(state), found: new Map<string, ArticleLink[]>() };
  try {
    preview = writer && new PreviewWriter(previewRoot, previousPreview);
    for (const loaded of content.sites) {
      const before = previous?.sites[loaded.site.id];
      compiled.push(
        await compileSite(
          loaded,
          {
            publicUrl: settings.publicUrl,
            dates,
            keys: state.keys,
            renderCache: caches.render,
            imageHashes: state.imageHashes,
            checked: state.checked,
            links,
            pool,
            writer,
            preview,
            previous:
              before && (writer || !write)
                ? previousSite(settings.distDir, loaded.site.id, before, previousPreview)
                : null,
          },
          issues,
        ),
      );
    }
    await renderingDone();
    const sites = compiled.map(({ id, published, drafts }) => ({
      id,
      published,
      drafts,
      draftSlugs: draftSlugsOf(content, id),
    }));
    state.links = { map: links.found, json: null }; // the links of the articles there are now, and no others
    state.compiled = { inputs, contentDir: path.resolve(settings.contentDir), issues: issues.slice(loadedIssues) };
    if (hasErrors(issues)) {
      await writer?.abort();
      preview?.abort();
      return finish({ ok: false, manifest: previous, written: false, sites }, compiled);
    }
    const manifestSites: Record<string, ManifestSite> = Object.fromEntries(compiled.map((c) => [c.id, c.manifest]));
    const body = {
      format: MANIFEST_FORMAT,
      renderer: RENDERER_VERSION,
      publicUrl: settings.publicUrl,
      sites: manifestSites,
      keyGenerations,
    } as const;
    // The build is a function of its inputs, so their hash identifies the output too.
    const manifest: Manifest = { ...body, buildId: inputs, builtAt: toIsoUtc(new Date()), inputs };
    if (!writer || !preview) return finish({ ok: true, manifest, written: false, sites }, compiled);
    // The state dir is written before dist/ is swapped: a state dir that cannot be written
    // (read-only, full) fails the build with dist/ untouched, never after replacing it.
    saveState();
    // The drafts first: dist/ names its build id once swapped in, and from then on readers look for them.
    preview.commit(previewManifestOf(manifest.buildId, compiled));
    await writer.commit(manifest);
    sweepReplacedPreviews(previewRoot, [manifest.buildId, previous?.buildId], preview.startedAt);
    return finish({ ok: true, manifest, written: true, sites }, compiled);
  } catch (err) {
    await writer?.abort();
    preview?.abort();
    throw err;
  }
}

/** Everything a build's output depends on, hashed. */
function inputsOf(
  content: LoadedContent,
  dates: Map<string, unknown>,
  publicUrl: string,
  keyGenerations: Record<string, number>,
): string {
  return hashBytes(
    JSON.stringify([
      MANIFEST_FORMAT,
      RENDERER_VERSION,
      publicUrl,
      keyGenerations,
      content.sites.map((s) => [
        { ...s.site, dir: undefined },
        [...s.authors.values()],
        [...s.images.values()].map((i) => [i.sitePath, i.size, i.mtimeMs]),
        s.articles.map((a) => [a.sitePath, a.hash, dates.get(a.file) ?? null]),
      ]),
    ]),
  );
}

function previousSite(
  distDir: string,
  id: string,
  site: ManifestSite,
  preview: PreviewManifest | null,
): PreviousSite | null {
  const items = readListItems(distDir, id);
  return items ? { site, items, drafts: preview?.sites[id] ?? null } : null; // without them, the site is built in full
}

function previewManifestOf(buildId: string, compiled: CompiledSite[]): PreviewManifest {
  const sites: Record<string, PreviewSite> = {};
  for (const c of compiled) if (c.preview) sites[c.id] = c.preview;
  return { format: PREVIEW_FORMAT, buildId, sites };
}

/**
 * Deletes the preview trees no dist/ names any more, keeping `keep`'s (the build swapped in and
 * the one it replaced). dist/ is swapped already: a tree that cannot be deleted is left to the
 * next build, not a failed build.
 */
function sweepReplacedPreviews(root: string, keep: (string | undefined)[], since: number): void {
  try {
    sweepPreviewTrees(root, new Set(keep.filter((id) => id !== undefined)), since);
  } catch (err) {
    process.emitWarning(`could not delete old preview trees in ${root}: ${(err as Error).message}`);
  }
}

/** Keeps the persisted state to what the content has now; whether it dropped anything. */
function prune(state: BuildState, content: LoadedContent): boolean {
  const files = new Set<string>();
  const imageKeys = new Set<string>();
  for (const s of content.sites) {
    for (const a of s.articles) files.add(a.file);
    for (const i of s.images.values()) imageKeys.add(`${i.file}\0${i.size}\0${i.mtimeMs}`);
  }
  let dropped = false;
  for (const file of state.sources.keys()) if (!files.has(file)) dropped = state.sources.delete(file) || dropped;
  for (const key of state.imageHashes.keys())
    if (!imageKeys.has(key)) dropped = state.imageHashes.delete(key) || dropped;
  const maxChecked = 4 * Math.max(1000, files.size);
  if (state.checked.size > maxChecked) {
    const drop = state.checked.size - maxChecked;
    let i = 0;
    for (const key of state.checked.keys()) if (i++ < drop) state.checked.delete(key);
    dropped = true;
  }
  return dropped;
}

function draftSlugsOf(content: LoadedContent, siteId: string): string[] {
  const site = content.sites.find((l) => l.site.id === siteId);
  return site ? site.articles.filter((a) => a.meta.status === 'draft').map((a) => a.meta.slug) : [];
}
