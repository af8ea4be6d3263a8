// The contract's bodies (src/contract/, spec 2.1–2.4) made from a compiled article, and the bytes
// they are sent in. Types only from the contract: building loads no zod.
import type { Article, ArticleListItem } from '../contract/article.ts';
import type { WebhookArticle } from '../contract/webhook.ts';
import type { WebhookEvent } from '../contract/webhook-events.ts';
import type { SafeHtml } from '../render/safe-html.ts';

/** The single-article body as the build makes it: its html is sanitized by construction. */
export type ArticleBody = Article & { html: SafeHtml };

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

/**
 * The webhook payload's `article` as JSON text. The build hashes it (payloadHash) and publish
 * makes it again from the stored body: the same function on the same body gives the same bytes.
 */
export const webhookArticleJson = (a: ArticleBody): string => JSON.stringify(toWebhookArticle(a));

/** webhookArticleJson() of an article body read from dist/ (its exact stored JSON). */
export const webhookArticleJsonOf = (bodyJson: string): string => webhookArticleJson(JSON.parse(bodyJson) as ArticleBody);

/**
 * The webhook body, built from the payload's exact stored bytes so it is serialized once:
 * these bytes are what gets signed and sent.
 */
export function webhookBody(event: WebhookEvent, articleJson: string): string {
  return `{"event":${JSON.stringify(event)},"article":${articleJson}}`;
}
