// Output schemas of the MCP tools (zod): the same shapes as the Content API and the verifier.
import { z } from 'zod';

// `T | null` as two anyOf branches rather than `type: ["string", "null"]`: clients that map tool
// schemas onto a single-`type` dialect reject such a tool or drop the constraint (the MCP
// Inspector's schema-portability check warns about it). zod folds bare type branches into a
// type array; a branch with a description stays a branch. Use this instead of `.nullable()`.
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null().describe('none')]);
const nullableString = orNull(z.string());

export const SiteShape = z.object({
  id: z.string(),
  name: z.string(),
  lang: z.string(),
  url: z.string(),
  articlePath: z.string(),
  published: z.number().int(),
  webhook: orNull(z.object({ url: z.string(), disabled: z.boolean() })),
});

export const ListItemShape = z.object({
  slug: z.string(),
  title: z.string(),
  metaDescription: nullableString,
  excerpt: z.string(),
  lang: z.string(),
  publishedAt: nullableString,
  updatedAt: nullableString,
  imageUrl: nullableString,
  imageAlt: nullableString,
});

export const ArticleShape = z.object({
  slug: z.string(),
  title: z.string(),
  metaDescription: nullableString,
  lang: z.string(),
  html: z.string(),
  markdown: z.string(),
  imageUrl: nullableString,
  imageAlt: nullableString,
  publishedAt: nullableString,
  updatedAt: nullableString,
  kind: z.string(),
  sourceUrl: nullableString,
  related: z.array(z.object({ slug: z.string(), title: z.string() })),
  author: orNull(z.object({ name: z.string(), bio: nullableString, url: nullableString })),
});

export const CheckShape = z.object({
  id: z.enum(['sitemap', 'canonical', 'html', 'byline']),
  status: z.enum(['pass', 'warn', 'fail', 'error', 'skipped']),
  code: z.string(),
  message: z.string(),
  expected: nullableString,
  actual: nullableString,
  evidence: nullableString,
  fix: nullableString,
});

export const VerifyReportShape = z.object({
  ok: z.boolean(),
  summary: z.string(),
  siteId: z.string(),
  baseUrl: z.string(),
  articles: z.array(
    z.object({ slug: z.string(), url: z.string(), finalUrl: nullableString, redirects: z.array(z.string()), checks: z.array(CheckShape) }),
  ),
});

export const TestWebhookShape = z.object({
  sent: z.boolean(),
  ok: z.boolean(),
  code: z.string(),
  message: z.string(),
  deliveryId: nullableString,
  slug: nullableString,
  status: orNull(z.number().int()),
  durationMs: orNull(z.number()),
  replyUrl: nullableString,
});
