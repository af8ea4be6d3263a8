// The exact JSON shapes of the contract (spec 2.1–2.4). Field order is fixed here, once.
import type { SafeHtml } from '../render/safe-html.ts';

export interface SiteSummary {
  name: string;
  lang: string;
}

export interface ArticleListItem {
  slug: string;
  title: string;
  metaDescription: string | null;
  excerpt: string;
  lang: string;
  publishedAt: string | null;
  updatedAt: string | null;
  imageUrl: string | null;
  imageAlt: string | null;
}

export interface AuthorBody {
  name: string;
  bio: string | null;
  url: string | null;
}

export interface ArticleBody {
  slug: string;
  title: string;
  metaDescription: string | null;
  lang: string;
  html: SafeHtml;
  markdown: string;
  imageUrl: string | null;
  imageAlt: string | null;
  publishedAt: string | null;
  updatedAt: string | null;
  kind: string;
  sourceUrl: string | null;
  related: { slug: string; title: string }[];
  author: AuthorBody | null;
}

export interface ArticleListBody {
  site: SiteSummary;
  total: number;
  articles: ArticleListItem[];
}

/** Spec 2.4: every field is a string; absent values are sent as "". */
export interface WebhookArticle {
  id: string;
  title: string;
  slug: string;
  status: 'published' | 'draft';
  metaDescription: string;
  mdx: string;
  html: SafeHtml;
  imageUrl: string;
  imageAlt: string;
}

export type WebhookEvent = 'published' | 'updated';
/** Sent only to webhooks that opted in; the article is then just `{id, slug}`. */
export type ExtraWebhookEvent = 'unpublished' | 'deleted';

export function toListItem(a: ArticleBody, excerpt: string): ArticleListItem {
  return {
    slug: a.slug,
    title: a.title,
    metaDescription: a.metaDescription,
    excerpt,
    lang: a.lang,
    publishedAt: a.publishedAt,
    updatedAt: a.updatedAt,
    imageUrl: a.imageUrl,
    imageAlt: a.imageAlt,
  };
}

export function toWebhookArticle(a: ArticleBody): WebhookArticle {
  return {
    id: a.slug,
    title: a.title,
    slug: a.slug,
    status: 'published',
    metaDescription: a.metaDescription ?? '',
    mdx: a.markdown,
    html: a.html,
    imageUrl: a.imageUrl ?? '',
    imageAlt: a.imageAlt ?? '',
  };
}

type Dated = Pick<ArticleListItem, 'slug' | 'publishedAt' | 'updatedAt'>;

/**
 * Newest first: publishedAt, then updatedAt, then slug for a stable order. Plain code-unit
 * comparison: dates are all ISO 8601 UTC in one shape, and the order must not depend on the
 * machine's locale (localeCompare's collation also ignores `-` in slugs, and is ~10x slower).
 */
export function newestFirst(a: Dated, b: Dated): number {
  return descending(a.publishedAt ?? '', b.publishedAt ?? '') || descending(a.updatedAt ?? '', b.updatedAt ?? '') || -descending(a.slug, b.slug);
}

const descending = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

/**
 * The webhook body, built from the payload's exact stored bytes so it is serialized once:
 * these bytes are what gets signed and sent.
 */
export function webhookBody(event: WebhookEvent | ExtraWebhookEvent, articleJson: string): string {
  return `{"event":${JSON.stringify(event)},"article":${articleJson}}`;
}
