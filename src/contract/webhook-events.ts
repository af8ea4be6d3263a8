// The webhook's event names (spec 6), as plain data for code that must not load the schemas.
/** Sent with the full article to every webhook (spec 2.4). */
export const ARTICLE_EVENTS = ['published', 'updated'] as const;
/** Sent only to webhooks that opted in (`--extra-events`); the article is then just `{id, slug}`. */
export const REMOVAL_EVENTS = ['unpublished', 'deleted'] as const;

export type ArticleEvent = (typeof ARTICLE_EVENTS)[number];
export type RemovalEvent = (typeof REMOVAL_EVENTS)[number];
export type WebhookEvent = ArticleEvent | RemovalEvent;
