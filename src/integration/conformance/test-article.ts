// The article a conformance check sends: clearly a test (its slug starts with
// `quire-conformance-`, its title and text say so), in versions whose text carries a marker the
// check looks for on the receiver's pages; and its bodies, as Quire serializes them and in the
// other spellings of the same JSON that the raw-body rule needs.
import { randomBytes } from 'node:crypto';
import { webhookBody } from '../../articles/shapes.ts';
import type { WebhookArticle } from '../../contract/webhook.ts';
import type { ArticleEvent } from '../../contract/webhook-events.ts';

/** Every test article's slug starts with this, so a receiver can tell one (e.g. to skip a Content API lookup). */
export const TEST_SLUG_PREFIX = 'quire-conformance-';

/** The versions sent: three real ones, and the forged request's, which must never be shown. */
export type Version = 1 | 2 | 3 | 'forged';

export interface TestArticle {
  slug: string;
  /** Text only this version's page carries. */
  marker(version: Version): string;
  article(version: Version): WebhookArticle;
  /** The body as Quire sends it: serialized once, compact, keys in the contract's order. */
  body(event: ArticleEvent, version: Version): Buffer;
  /** The same JSON with keys in reverse order and unusual spacing: what a byte-exact verifier must accept. */
  unusualBody(event: ArticleEvent, version: Version): Buffer;
  /** The `deleted` event's body (sent only to receivers that opted in to extra events). */
  deletedBody(): Buffer;
}

export function makeTestArticle(random: () => Buffer = () => randomBytes(5)): TestArticle {
  const slug = `${TEST_SLUG_PREFIX}${random().toString('hex')}`;
  const marker = (v: Version) => (v === 'forged' ? `${slug}-forged` : `${slug}-version-${v}`);
  const article = (v: Version): WebhookArticle => {
    const forged = v === 'forged';
    const intro = forged
      ? 'This text came in a forged request of quire conformance: a receiver must refuse it and never show it.'
      : 'This is a test article sent by quire conformance to check how this site receives Quire webhooks. It is not a real article and is safe to delete.';
    return {
      id: slug,
      title: forged ? 'Forged request (quire conformance)' : 'Quire conformance check: test article, safe to delete',
      slug,
      status: 'published',
      metaDescription: 'A test article sent by quire conformance; not a real article.',
      mdx: `${intro}\n\nVersion: ${marker(v)}\n`,
      html: `<p>${intro}</p>\n<p>Version: ${marker(v)}</p>`,
      imageUrl: '',
      imageAlt: '',
    };
  };
  return {
    slug,
    marker,
    article,
    body: (event, v) => Buffer.from(webhookBody(event, JSON.stringify(article(v)))),
    unusualBody(event, v) {
      const fields = Object.entries(article(v))
        .reverse()
        .map(([key, value]) => `\t\t${JSON.stringify(key)} :  ${JSON.stringify(value)}`);
      return Buffer.from(`{\n  "article" : {\n${fields.join(' ,\n')}\n  } ,\n  "event" :${JSON.stringify(event)}\n}\n`);
    },
    deletedBody: () => Buffer.from(webhookBody('deleted', JSON.stringify({ id: slug, slug }))),
  };
}

/** The body spaced out (two-space indents): the bytes a re-serializing verifier turns back into the original. */
export const respaced = (body: Buffer): Buffer =>
  Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
