// The webhook's request bodies (spec 2.4, 6) and the receiver's optional reply (spec 2.5).
import { z } from 'zod';
import { ARTICLE_STATUSES } from '../content/model.ts';
import { SlugSchema } from './article.ts';
import { ARTICLE_EVENTS, REMOVAL_EVENTS } from './webhook-events.ts';

const id = SlugSchema.describe("Equals the slug; the receiver's key for the article (upsert by it).");

export const WebhookArticleSchema = z
  .strictObject({
    id,
    title: z.string(),
    slug: SlugSchema,
    status: z.enum(ARTICLE_STATUSES),
    metaDescription: z.string(),
    mdx: z.string().describe('Raw Markdown source.'),
    html: z.string().describe('Sanitized, ready to render.'),
    imageUrl: z.string(),
    imageAlt: z.string(),
  })
  .describe(
    'Every field is a string; a value the article does not have is sent as "". A payload has no author: read it from GET /articles/{slug}.',
  );

/** `published` and `updated`: the full article. */
export const ArticleEventPayloadSchema = z.strictObject({
  event: z.enum(ARTICLE_EVENTS),
  article: WebhookArticleSchema,
});

/** `unpublished` and `deleted`, sent only to webhooks that opted in: the article's id and slug. */
export const RemovalEventPayloadSchema = z
  .strictObject({
    event: z.enum(REMOVAL_EVENTS),
    article: z.strictObject({ id, slug: SlugSchema }),
  })
  .describe(
    'Sent only to webhooks registered with extra events: the article was withdrawn (back to draft) or deleted. Remove it by `article.id`.',
  );

export const WebhookPayloadSchema = z.discriminatedUnion('event', [
  ArticleEventPayloadSchema,
  RemovalEventPayloadSchema,
]);

export const WebhookReplySchema = z
  .looseObject({
    url: z
      .url({ protocol: /^https?$/ })
      .describe('Where the article is published on the receiving site (http or https).'),
    id: z.string().max(1000).describe("The receiving site's id for the article."),
  })
  .describe('Optional; tells Quire where the article landed.');

export type WebhookArticle = z.infer<typeof WebhookArticleSchema>;
export type ArticleEventPayload = z.infer<typeof ArticleEventPayloadSchema>;
export type RemovalEventPayload = z.infer<typeof RemovalEventPayloadSchema>;
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
export type WebhookReply = z.infer<typeof WebhookReplySchema>;
