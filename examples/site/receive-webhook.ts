// The reference site's webhook route, POST /webhooks/quire, as a function of the raw request:
// - verified with Quire's receiver kit over the bytes as received (401 when it fails);
// - applied in the order Quire sent them: each article keeps the `webhook-timestamp` of the
//   delivery applied (signed with the body), and an older delivery arriving late is answered 200
//   and changes nothing (a delivery sent again with the same timestamp or a newer one is applied);
// - upserted by article.id; `unpublished`/`deleted` (sent to webhooks that opted in) remove it;
// - answered with {url, id}.
// Test articles of `quire conformance` (slugs starting `quire-conformance-`) are not in the
// Content API: the site does not look them up there.
import { timingSafeEqual } from 'node:crypto';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import type { SiteFault, StoredArticle } from './site.ts';

export const CONFORMANCE_SLUG_PREFIX = 'quire-conformance-';

/** The Content API's article, for what a webhook payload lacks (author, updatedAt). */
export type ApiArticle = {
  html: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
};

export interface Receiving {
  secret: string;
  articles: Map<string, StoredArticle>;
  faults: Set<SiteFault>;
  /** Where the article is on this site, as replied. */
  replyUrl: (slug: string) => string;
  lookUp: (slug: string, html: string) => Promise<ApiArticle | null>;
}

export async function receiveWebhook(
  raw: Buffer,
  headers: Headers,
  r: Receiving,
): Promise<{ status: 200 | 400 | 401; body: unknown }> {
  const verified = verify(raw, headers, r);
  if (!verified.ok) return { status: verified.status, body: { error: verified.reason } };
  const { event, article } = verified.payload;
  if (event === 'unpublished' || event === 'deleted') {
    r.articles.delete(article.id);
    return { status: 200, body: { ok: true } };
  }
  const reply = { url: r.replyUrl(article.slug), id: article.id };
  const sentAt = Number(headers.get('webhook-timestamp'));
  const previous = r.articles.get(article.id);
  if (previous && sentAt < previous.sentAt && !r.faults.has('accepts-out-of-date')) return { status: 200, body: reply }; // an older delivery than the one applied: nothing to change
  const isTest = article.slug.startsWith(CONFORMANCE_SLUG_PREFIX);
  // Author and updatedAt live in the Content API's article, not in the webhook payload.
  const full = isTest ? null : await r.lookUp(article.slug, article.html);
  const stored: StoredArticle = {
    id: article.id,
    slug: article.slug,
    title: article.title,
    metaDescription: article.metaDescription,
    html: article.html,
    updatedAt:
      r.faults.has('stale-lastmod') && previous
        ? previous.updatedAt
        : isTest
          ? new Date(sentAt * 1000).toISOString().replace(/\.\d+Z$/, 'Z')
          : (full?.updatedAt ?? null),
    author: full?.author ? { name: full.author.name, url: full.author.url } : null,
    sentAt,
  };
  // The mistake of a store that inserts on `published` instead of upserting.
  const key =
    previous && event === 'published' && r.faults.has('duplicates-on-redelivery')
      ? `${article.id}#${r.articles.size}`
      : article.id;
  r.articles.set(key, stored);
  return { status: 200, body: reply };
}

type Verified = ReturnType<typeof verifyWebhook>;

function verify(raw: Buffer, headers: Headers, r: Receiving): Verified {
  if (r.faults.has('bearer-only')) {
    const token = Buffer.from(headers.get('authorization') ?? '');
    const expected = Buffer.from(`Bearer ${r.secret}`);
    if (token.length !== expected.length || !timingSafeEqual(token, expected))
      return { ok: false, status: 401, reason: 'bearer token does not match the secret' };
    return { ok: true, verifiedBy: 'bearer', payload: JSON.parse(raw.toString('utf8')) };
  }
  // The raw-body pitfall: the JSON parsed and serialized again before verifying.
  const bytes = r.faults.has('re-serializes-body')
    ? Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))))
    : raw;
  const verified = verifyWebhook(bytes, headers, r.secret);
  if (!verified.ok && r.faults.has('accepts-forged'))
    return { ok: true, verifiedBy: 'signature', payload: JSON.parse(raw.toString('utf8')) }; // logged and ignored
  return verified;
}
