// Discover content/<site>/… and check it as a whole: every problem collected, none thrown.
import { createHash } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  createFileBudget,
  readContentFile,
  symlinkIssue,
  tooLargeIssue,
  walkFiles,
  type FileBudget,
} from './content-files.ts';
import { issue, START, type ContentIssue } from './issues.ts';
import { CONTENT_LIMITS } from './limits.ts';
import { loadAuthors, loadSite, standInSite } from './load-site.ts';
import { fieldPlace, slugFromFileName, type ArticleMeta, type ArticleSource, type Author, type Site } from './model.ts';
import { parseArticle, splitBody } from './parse-article.ts';

export interface ImageFile {
  /** `images/…`, forward slashes. */
  sitePath: string;
  file: string;
  size: number;
  mtimeMs: number;
  /**
   * Larger than CONTENT_LIMITS.imageBytes: never read or published. Its own problem fails the
   * build; articles may still refer to it without being told it is missing.
   */
  tooLarge?: true;
}

export interface LoadedSite {
  site: Site;
  authors: Map<string, Author>;
  /** Every article that parsed, drafts included, in path order. */
  articles: ArticleSource[];
  images: Map<string, ImageFile>;
}

/**
 * What a build read and found: every site as loaded (drafts included) and every problem. Views
 * that show content (the admin's Articles tab) read this instead of reading files themselves.
 */
export interface ContentFacts {
  sites: readonly LoadedSite[];
  issues: readonly ContentIssue[];
}

export const NO_CONTENT_FACTS: ContentFacts = Object.freeze({ sites: [], issues: [] });

export interface LoadedContent {
  sites: LoadedSite[];
  issues: ContentIssue[];
  /** Article files read because they were new or changed (the others came from the cache). */
  read: number;
}

/**
 * What was learnt of each article file, by path: its stat, content hash and parsed front matter.
 * A file whose stat is unchanged is not read again; its body is read only when it must be rendered.
 */
export interface SourceEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
  meta: ArticleMeta | null;
  /** `meta` as JSON, once the build state has been saved or loaded with it (see build-state.ts). */
  metaJson?: string;
  bodyLine: number;
  /** Absent when there are none (most files): one array less per article in the build state. */
  issues?: ContentIssue[];
}
export type SourceCache = Map<string, SourceEntry>;

/**
 * Article files looked at between two turns of the event loop: a short stretch of reading and
 * parsing (docs/benchmarks-log.md, "figures first recorded in code comments").
 */
const YIELD_EVERY = 128;

/** Told once, while loading, that many articles are new or changed (a build starts its renderers). */
export interface ChangeWatch {
  threshold: number;
  onManyChanged(): void;
}

export async function loadContent(
  contentDir: string,
  cache: SourceCache = new Map(),
  watch?: ChangeWatch,
): Promise<LoadedContent> {
  const issues: ContentIssue[] = [];
  const sites: LoadedSite[] = [];
  let changed = 0;
  const noteChanged = () => {
    if (++changed === watch?.threshold) watch.onManyChanged();
  };
  const budget = createFileBudget();
  for (const site of await discoverSites(contentDir, issues, { standIns: true })) {
    const unread: string[] = [];
    const [authors, articles, images] = await Promise.all([
      loadAuthors(path.join(site.dir, 'authors'), issues, budget),
      loadArticles(site, issues, cache, noteChanged, budget, unread),
      loadImages(site.dir, issues, budget),
    ]);
    checkArticles({ site, authors, articles, images }, issues, unread);
    sites.push({ site, authors, articles, images });
  }
  return { sites, issues, read: changed };
}

/**
 * The sites under content/ (each folder's site.yaml), without reading their articles. With
 * `standIns`, a folder whose site.yaml has problems is there too, as a stand-in (see standInSite).
 */
export async function discoverSites(
  contentDir: string,
  issues: ContentIssue[],
  opts: { standIns?: boolean } = {},
): Promise<Site[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(contentDir, { withFileTypes: true });
  } catch (err) {
    issues.push(
      issue(
        contentDir,
        START,
        'CONTENT_NO_SITES',
        `cannot read the content folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      ),
    );
    return [];
  }
  const visible = entries.filter((e) => !e.name.startsWith('.'));
  for (const e of visible) if (e.isSymbolicLink()) issues.push(symlinkIssue(path.join(contentDir, e.name)));
  const siteDirs = visible
    .filter((e) => e.isDirectory())
    .map((e) => path.join(contentDir, e.name))
    .sort();
  if (siteDirs.length === 0) {
    issues.push(
      issue(contentDir, START, 'CONTENT_NO_SITES', 'no sites found', {
        hint: 'create content/<site-id>/site.yaml',
      }),
    );
  }
  const sites: Site[] = [];
  for (const dir of siteDirs) {
    const site = await loadSite(dir, issues);
    if (site) sites.push(site);
    else if (opts.standIns) sites.push(standInSite(dir));
  }
  return sites;
}

/** The site's articles that could be read; the files of the others (their problems reported) go to `unread`. */
async function loadArticles(
  site: Site,
  issues: ContentIssue[],
  cache: SourceCache,
  noteChanged: () => void,
  budget: FileBudget,
  unread: string[],
): Promise<ArticleSource[]> {
  const files = (await walkFiles(path.join(site.dir, 'articles'), issues, budget))
    .filter((f) => f.toLowerCase().endsWith('.md'))
    .sort();
  const results: (ArticleSource | null)[] = new Array(files.length).fill(null);
  for (let index = 0; index < files.length; index++) {
    // Reads are synchronous (readContentFile): now and then the event loop gets a turn, so that a
    // server loading a large site in its process still answers meanwhile.
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise(setImmediate);
    const file = files[index]!;
    // lstat, sync: much faster than fs.promises.stat for many small files (docs/benchmarks-log.md,
    // "figures first recorded in code comments"); the walk saw no link here.
    const stat = fsSync.lstatSync(file);
    if (stat.size > CONTENT_LIMITS.articleBytes) {
      issues.push(tooLargeIssue(file, stat.size, CONTENT_LIMITS.articleBytes));
      continue;
    }
    let entry = cache.get(file);
    if (
      !entry ||
      entry.size !== stat.size ||
      entry.mtimeMs !== stat.mtimeMs ||
      entry.ctimeMs !== stat.ctimeMs ||
      entry.ino !== stat.ino
    ) {
      noteChanged();
      const bytes = readContentFile(file, CONTENT_LIMITS.articleBytes, issues);
      if (!bytes) continue;
      // The body is not kept: a large site's bodies would all sit in memory at once. It is read
      // again (and checked against this hash) when it has to be rendered.
      const parsed = parseSafely(file, bytes);
      entry = {
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        ctimeMs: stat.ctimeMs,
        ino: stat.ino,
        hash: createHash('sha256').update(bytes).digest('hex'),
        meta: parsed.meta,
        bodyLine: parsed.bodyLine,
        ...(parsed.issues.length ? { issues: parsed.issues } : {}),
      };
      cache.set(file, entry);
    }
    if (entry.issues) issues.push(...entry.issues);
    if (!entry.meta) continue;
    results[index] = {
      siteId: site.id,
      file,
      sitePath: sitePathOf(site.dir, file),
      hash: entry.hash,
      mtimeMs: stat.mtimeMs,
      meta: entry.meta,
      bodyLine: entry.bodyLine,
      version: entry,
    };
  }
  files.forEach((file, i) => results[i] === null && unread.push(file));
  return results.filter((r): r is ArticleSource => r !== null);
}

/** parseArticle, with anything it did not foresee made this file's problem rather than the build's. */
function parseSafely(file: string, bytes: Uint8Array): ReturnType<typeof parseArticle> {
  try {
    return parseArticle(file, bytes);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      meta: null,
      markdown: '',
      bodyLine: 1,
      issues: [issue(file, START, 'CONTENT_UNREADABLE', `the file could not be read: ${message}`)],
    };
  }
}

/** The article's Markdown body, read now and checked against the hash seen when loading. */
export function readMarkdown(source: ArticleSource): string {
  const bytes = readContentFile(source.file, CONTENT_LIMITS.articleBytes, []);
  if (!bytes || createHash('sha256').update(bytes).digest('hex') !== source.hash) {
    throw new Error(`${source.sitePath} changed while it was being built; build again`);
  }
  return splitBody(source.file, bytes);
}

async function loadImages(
  siteDir: string,
  issues: ContentIssue[],
  budget: FileBudget,
): Promise<Map<string, ImageFile>> {
  const images = new Map<string, ImageFile>();
  for (const file of await walkFiles(path.join(siteDir, 'images'), issues, budget)) {
    const stat = fsSync.lstatSync(file);
    const sitePath = sitePathOf(siteDir, file);
    const image: ImageFile = { sitePath, file, size: stat.size, mtimeMs: stat.mtimeMs };
    if (stat.size > CONTENT_LIMITS.imageBytes) {
      issues.push(tooLargeIssue(file, stat.size, CONTENT_LIMITS.imageBytes));
      image.tooLarge = true;
    }
    images.set(sitePath, image);
  }
  return images;
}

/** Cross-article checks: duplicate slugs, unknown authors, related slugs (and drafts among them) and images. */
function checkArticles(loaded: LoadedSite, issues: ContentIssue[], unread: readonly string[]): void {
  // A related slug naming an article whose file could not be read is that file's problem, already
  // reported: its slug is guessed from its file name so the fault is not told twice.
  const unreadSlugs = new Set(unread.map((file) => slugFromFileName(path.basename(file))));
  const bySlug = new Map<string, ArticleSource>();
  for (const a of loaded.articles) {
    const first = bySlug.get(a.meta.slug);
    if (first) {
      issues.push(
        issue(
          a.file,
          fieldPlace(a.meta, 'slug'),
          'CONTENT_SLUG_DUPLICATE',
          `slug "${a.meta.slug}" is used by two articles`,
          {
            hint: 'give one of the two articles its own `slug:`',
            other: { file: first.file, ...fieldPlace(first.meta, 'slug') },
          },
        ),
      );
    } else bySlug.set(a.meta.slug, a);
  }
  for (const a of loaded.articles) {
    const { meta } = a;
    if (meta.author !== null && !loaded.authors.has(meta.author)) {
      const known = [...loaded.authors.keys()];
      issues.push(
        issue(a.file, fieldPlace(meta, 'author'), 'CONTENT_AUTHOR_UNKNOWN', `unknown author "${meta.author}"`, {
          hint: known.length
            ? `add authors/${meta.author}.yaml or use one of: ${known.join(', ')}`
            : `add authors/${meta.author}.yaml`,
        }),
      );
    }
    for (const r of meta.related) {
      if (r.slug === meta.slug) {
        issues.push(
          issue(a.file, r, 'CONTENT_RELATED_SELF', 'an article cannot be related to itself', { severity: 'warning' }),
        );
      } else if (!bySlug.has(r.slug) && !unreadSlugs.has(r.slug)) {
        issues.push(
          issue(
            a.file,
            r,
            'CONTENT_RELATED_UNKNOWN',
            `related slug "${r.slug}" matches no article of site "${loaded.site.id}"`,
          ),
        );
      } else if (meta.status === 'published' && bySlug.get(r.slug)?.meta.status === 'draft') {
        // A draft naming a draft is not told: the two are likely to be published together.
        issues.push(
          issue(
            a.file,
            r,
            'CONTENT_RELATED_DRAFT',
            `related article "${r.slug}" is a draft, left out until it is published`,
            {
              severity: 'warning',
              hint: `publish "${r.slug}", or remove it from \`related\``,
            },
          ),
        );
      }
    }
    if (meta.image?.kind === 'file' && !loaded.images.has(meta.image.sitePath)) {
      issues.push(
        issue(
          a.file,
          fieldPlace(meta, 'image'),
          'CONTENT_IMAGE_MISSING',
          `image "${meta.image.sitePath}" does not exist`,
          {
            hint: `add the file to content/${loaded.site.id}/${meta.image.sitePath} or fix the path`,
          },
        ),
      );
    }
  }
}

/** `articles/x.md`, `images/y.png` for a file found by walking the site folder (cheaper than path.relative at 10,000 files). */
function sitePathOf(siteDir: string, file: string): string {
  const rel = file.startsWith(siteDir + path.sep) ? file.slice(siteDir.length + 1) : path.relative(siteDir, file);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}
