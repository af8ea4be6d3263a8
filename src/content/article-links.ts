// Links in an article's body to other articles of the same site, and whether those are there to
// read. Two forms count: a link to the article's file (`../guides/setup.md`, `/articles/x.md`:
// as GitHub and editors preview them), and a link in the form of the site's `articlePath`
// (`/blog/setup`, or `https://<the site's host>/blog/setup`). Any other link (another host, a
// page of the site that is not an article, `mailto:`) is not an article link and is not checked.
import path from 'node:path';
import { issue, type ContentIssue } from './issues.ts';
import { SLUG, type ArticleSource, type Site } from './model.ts';

/** A link of a body as the render found it (src/render/render-context.ts's BodyLink). */
export interface FoundLink {
  /** As the rendered HTML has it (Markdown links percent-encoded). */
  href: string;
  /** Its text, whitespace collapsed, cut to a length a message can quote. */
  text: string;
  line: number;
  column: number;
}

/** Which article a link names: by its file (site path) or by the slug in its URL. */
export type ArticleLinkTarget = { file: string } | { slug: string };

/** A link of a body that names an article of the site (kept by the build for the next one). */
export interface ArticleLink extends FoundLink {
  target: ArticleLinkTarget;
}

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Whether a link could name an article, decided from the link alone (the render keeps only
 * these): a path, or an http(s) URL. In-page links, other schemes and `//host` links cannot.
 */
export function mayLinkToArticle(href: string): boolean {
  if (href === '' || href.startsWith('#') || href.startsWith('//')) return false;
  return !HAS_SCHEME.test(href) || /^https?:/i.test(href);
}

/** The article links among `links` of the article at `fromSitePath` (`articles/x.md`). */
export function articleLinksOf(
  links: readonly FoundLink[],
  fromSitePath: string,
  site: Pick<Site, 'url' | 'articlePath'>,
): ArticleLink[] {
  const form = articleUrlForm(site);
  const out: ArticleLink[] = [];
  for (const link of links) {
    const target = targetOf(link.href, fromSitePath, form);
    if (target) out.push({ href: link.href, text: link.text, line: link.line, column: link.column, target });
  }
  return out;
}

function targetOf(href: string, fromSitePath: string, form: ArticleUrlForm): ArticleLinkTarget | null {
  if (HAS_SCHEME.test(href)) return targetOfUrl(href, form);
  const pathname = decoded(href.replace(/[?#].*$/s, ''));
  if (/\.md$/i.test(pathname)) {
    const sitePath = pathname.startsWith('/')
      ? path.posix.normalize(pathname.slice(1))
      : path.posix.normalize(path.posix.join(path.posix.dirname(fromSitePath), pathname));
    // A Markdown file outside articles/ (a README, another site's folder) is no article of this site.
    return sitePath.startsWith('articles/') ? { file: sitePath } : null;
  }
  if (!pathname.startsWith('/')) return null; // relative to a page: where it leads is the site's to say
  const slug = form.slugOf(pathname);
  return slug === null ? null : { slug };
}

/** An http(s) link to the site's own origin, read by its path. */
function targetOfUrl(href: string, form: ArticleUrlForm): ArticleLinkTarget | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (form.origin === null || url.origin !== form.origin) return null;
  const slug = form.slugOf(decoded(url.pathname));
  return slug === null ? null : { slug };
}

/** Where a site's articles live: its origin, and the slug a path names in the form of `articlePath`. */
interface ArticleUrlForm {
  origin: string | null;
  slugOf(pathname: string): string | null;
}

/**
 * A trailing `/` more or less is the same page, and the slug must be one. An `articlePath` that is
 * only `{slug}` (`/{slug}`) would take every page of the site for an article: only links to
 * article files are read then.
 */
function articleUrlForm(site: Pick<Site, 'url' | 'articlePath'>): ArticleUrlForm {
  const trimmed = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const parts = trimmed(site.articlePath).split('{slug}').map(escapeRegExp);
  if (parts.join('').replace(/\//g, '') === '') return { origin: null, slugOf: () => null };
  // articleUrl puts the same slug at every {slug}: the first is captured, the others must repeat it.
  const pattern = new RegExp(`^${parts.reduce((acc, part, i) => `${acc}${i === 1 ? '([^/]+)' : '\\1'}${part}`)}$`);
  let origin: string | null;
  try {
    origin = new URL(site.url).origin;
  } catch {
    origin = null;
  }
  return {
    origin,
    slugOf: (pathname) => {
      const slug = pattern.exec(trimmed(pathname))?.[1];
      return slug !== undefined && SLUG.test(slug) ? slug : null;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A site's articles by file and by slug, for the link checks. */
export interface SiteArticles {
  siteId: string;
  bySitePath: ReadonlyMap<string, ArticleSource>;
  bySlug: ReadonlyMap<string, ArticleSource>;
}

export function siteArticles(siteId: string, articles: readonly ArticleSource[]): SiteArticles {
  const bySitePath = new Map<string, ArticleSource>();
  const bySlug = new Map<string, ArticleSource>();
  for (const a of articles) {
    bySitePath.set(a.sitePath, a);
    if (!bySlug.has(a.meta.slug)) bySlug.set(a.meta.slug, a);
  }
  return { siteId, bySitePath, bySlug };
}

/**
 * Warnings for the article links of `source`: a link to no article of the site, and a published
 * article's link to a draft (a draft linking to a draft is not told: they are likely to be
 * published together). A link is never an error: the article is built as written.
 */
export function articleLinkProblems(
  source: ArticleSource,
  links: readonly ArticleLink[],
  site: SiteArticles,
): ContentIssue[] {
  const problems: ContentIssue[] = [];
  for (const link of links) {
    const named = 'file' in link.target ? link.target.file : `the slug "${link.target.slug}"`;
    const linked = 'file' in link.target ? site.bySitePath.get(link.target.file) : site.bySlug.get(link.target.slug);
    const said = `link "${link.text}" (${link.href})`;
    if (!linked) {
      problems.push(
        issue(
          source.file,
          link,
          'CONTENT_LINK_UNKNOWN',
          `${said} leads to no article of site "${site.siteId}" (${named})`,
          {
            severity: 'warning',
            hint: 'correct the link to an existing article, or remove it',
          },
        ),
      );
    } else if (source.meta.status === 'published' && linked.meta.status === 'draft') {
      problems.push(
        issue(
          source.file,
          link,
          'CONTENT_LINK_DRAFT',
          `${said} leads to "${linked.meta.slug}", a draft: readers find nothing there until it is published`,
          { severity: 'warning', hint: `publish "${linked.meta.slug}" first, or remove the link until it is` },
        ),
      );
    }
  }
  return problems;
}
