// GET /v1/changes: what changed for the key's site since a cursor, oldest first (the pull
// complement to the publish webhook; both come from the same record of each publish).
import { z } from 'zod';
import { ArticleListItemSchema, isoUtc, SlugSchema } from './article.ts';

const common = {
  slug: SlugSchema,
  id: SlugSchema.describe("Equals the slug, as a webhook payload's `article.id`: the key to upsert by."),
  at: isoUtc.describe('When the publish that made this change ran (a go-live or expiry: its instant). ISO 8601, UTC.'),
};

export const ArticleChangeSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z
      .enum(['published', 'updated'])
      .describe(
        '`published`: now served (new, or back after a withdrawal); `updated`: served before and now, and changed.',
      ),
    ...common,
    article: ArticleListItemSchema.describe("The article's item of GET /v1/articles as it was at this change."),
  }),
  z.strictObject({
    type: z
      .enum(['withdrawn', 'deleted'])
      .describe('`withdrawn`: no longer served (back to draft, or past its expiresAt); `deleted`: its file is gone.'),
    ...common,
  }),
]);

export const ChangeFeedSchema = z.strictObject({
  changes: z
    .array(ArticleChangeSchema)
    .describe(
      "Oldest first. Without `since`: every article of the state the site's last publish recorded (what it serves once a publish ran after its build), each as `published`.",
    ),
  cursor: z.string().describe('Opaque: pass it back as `since` to get what changed after this answer.'),
  more: z.boolean().describe('true: more changes follow already; ask again with `cursor` at once.'),
});

export type ArticleChange = z.infer<typeof ArticleChangeSchema>;
/** A webhook's `unpublished` is `withdrawn` here. */
export type ChangeType = ArticleChange['type'];
export type ChangeFeed = z.infer<typeof ChangeFeedSchema>;
