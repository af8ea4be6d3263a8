// Output schemas of the MCP tools (zod): the same shapes as the Content API and the verifier.
import { z } from 'zod';

const nullableString = z.string().nullable();

export const SiteShape = z.object({
  id: z.string(),
  name: z.string(),
  lang: z.string(),
  url: z.string(),
  articlePath: z.string(),
  published: z.number().int(),
  webhook: z.object({ url: z.string(), disabled: z.boolean() }).nullable(),
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
  author: z.object({ name: z.string(), bio: nullableString, url: nullableString }).nullable(),
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
  status: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  replyUrl: nullableString,
});
