// The contract's bodies (src/contract/, spec 2.1–2.4) made from a compiled article, and the bytes
// they are sent in. Types only from the contract: building loads no zod.
import type { ArticleMeta, Author } from '../content/model.ts';
import type { Article, ArticleListItem, RelatedArticle } from '../contract/article.ts';
import type { WebhookArticle } from '../contract/webhook.ts';
import type { WebhookEvent } from '../contract/webhook-events.ts';
import type { SafeHtml } from '../render/safe-html.ts';
import type { ArticleDates } from './dates.ts';

/** The single-article body as the build makes it: its html is sanitized by construction. */
export type ArticleBody = Article & { html: SafeHtml };

/** What an article's body is made of: its front matter and what the build found for it. */
export interface BodyParts {
  meta: ArticleMeta;
  /** The site's language, the article's unless its front matter names another. */
  siteLang: string;
  html: SafeHtml;
  markdown: string;
  /** The published URL of the front matter's image when that is a file; null when it is not one or cannot be found. */
  imageFileUrl: string | null;
  related: RelatedArticle[];
  author: Author | null;
  dates: ArticleDates;
}

/** The single-article body. Its fields are in the order the JSON has them (bodies are hashed as bytes). */
export function articleBody({
  meta,
  siteLang,
  html,
  markdown,
  imageFileUrl,
  related,
  author,
  dates,
}: BodyParts): ArticleBody {
  return {
    slug: meta.slug,
    title: meta.title,
    metaDescription: meta.metaDescription,
    lang: meta.lang ?? siteLang,
    html,
    markdown,
    imageUrl: meta.image?.kind === 'url' ? meta.image.url : imageFileUrl,
    imageAlt: meta.imageAlt,
    publishedAt: dates.publishedAt,
    updatedAt: dates.updatedAt,
    kind: meta.kind,
    sourceUrl: meta.sourceUrl,
    related,
    author: author ? { name: author.name, bio: author.bio, url: author.url } : null,
  };
}

/**
 * `related` as the body lists it: the published articles of the site named in front matter, in
 * the order given, by slug and title (`published`: slug → title); itself and drafts left out.
 */
export function relatedArticles(
  meta: Pick<ArticleMeta, 'slug' | 'related'>,
  published: ReadonlyMap<string, string>,
): RelatedArticle[] {
  return meta.related
    .filter((r) => r.slug !== meta.slug && published.has(r.slug))
    .map((r) => ({ slug: r.slug, title: published.get(r.slug)! }));
}

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
export const webhookArticleJsonOf = (bodyJson: string): string =>
  webhookArticleJson(JSON.parse(bodyJson) as ArticleBody);

/**
 * The webhook body, built from the payload's exact stored bytes so it is serialized once:
 * these bytes are what gets signed and sent.
 */
export function webhookBody(event: WebhookEvent, articleJson: string): string {
  return `{"event":${JSON.stringify(event)},"article":${articleJson}}`;
}
