// The editors' content model, as read from content/<site>/… and checked.
import type { Place } from './issues.ts';

export const SITE_ID = /^[a-z0-9][a-z0-9-]*$/;
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 200;
export const LANG_TAG = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{1,8})*$/;

export const ARTICLE_KINDS = ['standard', 'programmatic', 'youtube', 'news'] as const;
export type ArticleKind = (typeof ARTICLE_KINDS)[number];
export const ARTICLE_STATUSES = ['draft', 'published'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

export const DEFAULT_ARTICLE_PATH = '/blog/{slug}';
export const DEFAULT_TIMEZONE = 'UTC';
/** How long after a delivery is acknowledged its page is first checked, unless site.yaml says (`verifyAfterDelivery`). */
export const DEFAULT_VERIFY_DELAY_MS = 30_000;
/** The longest first delay site.yaml may ask for: a page check is about the delivery just made. */
export const MAX_VERIFY_DELAY_MS = 3_600_000;

export interface Site {
  id: string;
  name: string;
  lang: string;
  /** Base URL of the site that renders the articles. */
  url: string;
  articlePath: string;
  /** IANA time zone the admin shows scheduled times in, besides UTC (`timezone:`, default UTC). */
  timezone: string;
  /**
   * The site's draft preview route, with `{slug}` and `{token}` to fill in, or null when the site
   * has none.
   */
  previewUrl: string | null;
  /**
   * How long after each acknowledged `published` or `updated` delivery the article's live page is
   * first checked (`verifyAfterDelivery:`, default DEFAULT_VERIFY_DELAY_MS), or null: not checked.
   */
  verifyAfterDeliveryMs: number | null;
  /** Absolute path of content/<site>. */
  dir: string;
}

export interface Author {
  id: string;
  name: string;
  bio: string | null;
  url: string | null;
}

/** An image referenced by content: a file under the site's images/ or an https URL. */
export type ImageRef = { kind: 'file'; sitePath: string } | { kind: 'url'; url: string };

/** Front matter after checking, before cross-article checks. */
export interface ArticleMeta {
  title: string;
  slug: string;
  status: ArticleStatus;
  metaDescription: string | null;
  excerpt: string | null;
  lang: string | null;
  image: ImageRef | null;
  imageAlt: string | null;
  author: string | null;
  related: { slug: string; line: number; column: number }[];
  kind: ArticleKind;
  sourceUrl: string | null;
  publishedAt: string | null;
  updatedAt: string | null;
  /** From this instant (UTC) the article is withdrawn; null: never. */
  expiresAt: string | null;
  /**
   * Where the fields checked later against other files or git sit (slug, author, image, expiresAt), as line and
   * column pairs in one flat array: the build state keeps this for every article, and one small
   * array deserializes far faster than three objects. Read it with fieldPlace().
   */
  places: FieldPlaces;
}

export type FieldPlaces = [number, number, number, number, number, number, number, number];
const PLACE_INDEX = { slug: 0, author: 2, image: 4, expiresAt: 6 } as const;

export function fieldPlaces(place: (field: keyof typeof PLACE_INDEX) => Place): FieldPlaces {
  const s = place('slug');
  const a = place('author');
  const i = place('image');
  const e = place('expiresAt');
  return [s.line, s.column, a.line, a.column, i.line, i.column, e.line, e.column];
}

export function fieldPlace(meta: Pick<ArticleMeta, 'places'>, field: keyof typeof PLACE_INDEX): Place {
  const at = PLACE_INDEX[field];
  return { line: meta.places[at]!, column: meta.places[at + 1]! };
}

export interface ArticleSource {
  siteId: string;
  /** Absolute path. */
  file: string;
  /** Path relative to the site dir, with forward slashes: `articles/guides/x.md`. */
  sitePath: string;
  /** sha256 of the file's bytes. */
  hash: string;
  mtimeMs: number;
  meta: ArticleMeta;
  /** Line of the file where the body starts (1-based). */
  bodyLine: number;
  /**
   * This version of the file: the same object for as long as the file is unchanged (the loader's
   * entry for it), under which the build keeps what it computed from it for the next build;
   * absent for sources made without one.
   */
  version?: object;
}

export const FRONT_MATTER_FIELDS = [
  'title',
  'slug',
  'status',
  'metaDescription',
  'excerpt',
  'lang',
  'image',
  'imageAlt',
  'author',
  'related',
  'kind',
  'sourceUrl',
  'publishedAt',
  'updatedAt',
  'expiresAt',
] as const;

/** Turns a file name into a slug: lower-case words joined by `-`. */
export function slugFromFileName(name: string): string {
  return name
    .replace(/\.md$/i, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The URL of an article on the receiving site. */
export function articleUrl(site: Pick<Site, 'url' | 'articlePath'>, slug: string): string {
  return new URL(site.articlePath.replaceAll('{slug}', slug), site.url).href;
}
