// Quire's webhook: verify the signature over the raw body (`await request.text()`, never
// `request.json()`), then expire exactly what changed — the article's tag and the list's tag —
// so the next request renders them afresh, and reply `{url, id}` (where the article lives now).
// quire/receiver/web uses Web Crypto and no Node built-in, so this handler also runs with
// `export const runtime = 'edge'` (which Next.js 16 deprecates: it runs on Node here).
import { revalidateTag } from 'next/cache';
import { verifyWebhook } from 'quire/receiver/web';
import { articlePath, articleTag, LIST_TAG, siteUrl } from '../../../lib/quire';

export async function POST(request: Request): Promise<Response> {
  const secret = process.env.QUIRE_WEBHOOK_SECRET;
  if (!secret) return Response.json({ error: 'set QUIRE_WEBHOOK_SECRET' }, { status: 500 });
  const verified = await verifyWebhook(await request.text(), request.headers, secret);
  if (!verified.ok) return Response.json({ error: verified.reason }, { status: verified.status });
  const { article } = verified.payload; // published, updated, unpublished or deleted: all change both
  // `expire: 0`: the next request waits for fresh data instead of being served the stale page once.
  revalidateTag(articleTag(article.slug), { expire: 0 });
  revalidateTag(LIST_TAG, { expire: 0 });
  return Response.json({ url: siteUrl(articlePath(article.slug)), id: article.id });
}
