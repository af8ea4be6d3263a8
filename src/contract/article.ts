// The Content API's response bodies (spec 2.1–2.3). Field order here is the order on the wire.
// Types come from these schemas; import them with `import type` so a module that only needs the
// types does not load zod.
import { z } from 'zod';
import { toIsoUtc } from '../content/dates.ts';
import { ARTICLE_KINDS, MAX_SLUG_LENGTH, SLUG } from '../content/model.ts';
import { orNull } from './or-null.ts';

function isIsoUtc(text: string): boolean {
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && toIsoUtc(date) === text;
}

/**
 * What Quire writes: ISO 8601 in UTC with second precision. Checked by a round trip rather than
 * zod's own ISO pattern, which would put ~300 characters of regular expression into every
 * schema a reader sees; `format` says it.
 */
export const isoUtc = z
  .string()
  .refine(isIsoUtc, 'not a UTC date-time such as 2026-03-14T09:30:00Z')
  .meta({ format: 'date-time' });
const dateTime = (description: string) =>
  orNull(isoUtc).describe(`${description} ISO 8601, UTC, e.g. 2026-03-14T09:30:00Z; null when unknown.`);
export const SlugSchema = z
  .string()
  .regex(SLUG)
  .max(MAX_SLUG_LENGTH)
  .describe('The article\'s name in URLs, unique in its site: lower-case words of a-z and 0-9 joined by "-".');
const metaDescription = orNull(z.string()).describe('From front matter; null when not set.');
const lang = z.string().describe("Language tag: front matter `lang`, else the site's.");
const imageUrl = orNull(z.url()).describe(
  "Absolute URL of the cover image: a content-hashed file under this server's /assets/, or the https:// URL given in front matter; null when none.",
);
const imageAlt = orNull(z.string()).describe("The cover image's alternative text; null when not set.");
const publishedAt = dateTime(
  'When the article was first published: front matter, else the first commit in which it was published.',
);
const updatedAt = dateTime('When the article last changed: front matter, else the last commit that changed its file.');

/** In answers to a preview key only (never to a site's public key). */
const previewStatus = z
  .enum(['draft', 'scheduled', 'published'])
  .optional()
  .describe(
    'Only in answers to a preview key (pv_…): draft, scheduled (published, with publishedAt still ahead) or published. Answers to a public key never have it.',
  );
const expiresAt = isoUtc
  .optional()
  .describe(
    'Only in answers to a preview key, and only when front matter sets it: when the article is withdrawn. ISO 8601, UTC.',
  );

export const SiteSummarySchema = z.strictObject({
  name: z.string().describe("The site's name (site.yaml)."),
  lang: z.string().describe("The site's default language tag (site.yaml)."),
});

export const ArticleListItemSchema = z.strictObject({
  slug: SlugSchema,
  title: z.string(),
  metaDescription,
  excerpt: z
    .string()
    .describe(
      'From front matter; else the plain text of the body\'s first paragraph that has text (markup removed, footnote markers left out, whitespace collapsed), cut at a word boundary to at most 200 characters and then "…"; a body without one falls back to metaDescription, then to "".',
    ),
  lang,
  publishedAt,
  updatedAt,
  imageUrl,
  imageAlt,
  status: previewStatus,
  expiresAt,
});

export const AuthorSchema = z.strictObject({
  name: z.string(),
  bio: orNull(z.string()).describe('null when not set.'),
  url: orNull(z.url()).describe('Where the byline links to; null when not set.'),
});

export const RelatedArticleSchema = z.strictObject({ slug: SlugSchema, title: z.string() });

export const ArticleSchema = z.strictObject({
  slug: SlugSchema,
  title: z.string(),
  metaDescription,
  lang,
  html: z.string().describe('Sanitized, render-ready HTML. Inject it as received.'),
  markdown: z.string().describe('The raw Markdown source (front matter removed; image paths as written).'),
  imageUrl,
  imageAlt,
  publishedAt,
  updatedAt,
  kind: z.enum(ARTICLE_KINDS).describe('Front matter `kind`; `standard` when not set.'),
  sourceUrl: orNull(z.url()).describe('Source link of a youtube or externally derived article; null otherwise.'),
  related: z
    .array(RelatedArticleSchema)
    .describe(
      'Articles of the same site named in front matter `related` that are live when the answer is made (published, past their go-live, not expired), in that order.',
    ),
  author: orNull(AuthorSchema).describe('null when the article names no author.'),
  status: previewStatus,
  expiresAt,
});

export const ArticleListSchema = z.strictObject({
  site: SiteSummarySchema,
  total: z.int().nonnegative().describe('How many articles match the filters, before paging.'),
  articles: z.array(ArticleListItemSchema).describe('Newest first: by publishedAt, then updatedAt, then slug A to Z.'),
});

export type SiteSummary = z.infer<typeof SiteSummarySchema>;
export type ArticleListItem = z.infer<typeof ArticleListItemSchema>;
export type Author = z.infer<typeof AuthorSchema>;
export type RelatedArticle = z.infer<typeof RelatedArticleSchema>;
export type Article = z.infer<typeof ArticleSchema>;
export type ArticleList = z.infer<typeof ArticleListSchema>;
