// A runnable webhook receiver to start from: verifies each delivery with verifyWebhook, upserts
// the article by `article.id`, and replies {url, id} so Quire records where it landed.
//
//   RECEIVER_SECRET=<the webhook secret> PORT=8788 npm run receiver:example
//
// Put it behind HTTPS (Quire only delivers to public https URLs) and register that URL with
// `quire webhook set <site> --url https://…/webhooks/quire --secret <same secret>`.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { verifyWebhook, type QuireWebhookArticle } from './verify-webhook.ts';

export function createExampleReceiver(opts: { secret: string; publicBaseUrl: string }) {
  const articles = new Map<string, QuireWebhookArticle & { receivedAt: string }>();
  const app = new Hono();

  app.post('/webhooks/quire', async (c) => {
    // The raw bytes, not c.req.json(): the signature is over exactly what was sent.
    const raw = Buffer.from(await c.req.arrayBuffer());
    const verified = verifyWebhook(raw, c.req.raw.headers, opts.secret);
    if (!verified.ok) return c.json({ error: verified.reason }, verified.status);
    const { event, article } = verified.payload;
    if (event === 'published' || event === 'updated') {
      articles.set(article.id, { ...article, receivedAt: new Date().toISOString() }); // upsert: no duplicates
    } else if (event === 'unpublished' || event === 'deleted') {
      articles.delete(article.id);
    }
    return c.json({
      url: new URL(`/blog/${encodeURIComponent(article.slug)}`, opts.publicBaseUrl).href,
      id: article.id,
    });
  });

  app.get('/blog/:slug', (c) => {
    const article = articles.get(c.req.param('slug'));
    if (!article) return c.notFound();
    // `html` is already sanitized by Quire: inject it as received, do not re-process it.
    return c.html(
      `<!doctype html><html><head><title>${escapeHtml(article.title)}</title>` +
        `<link rel="canonical" href="${escapeHtml(c.req.url)}"></head><body><article>${article.html}</article></body></html>`,
    );
  });

  return { app, articles };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.RECEIVER_SECRET;
  if (!secret) {
    process.stderr.write('set RECEIVER_SECRET to the webhook secret registered in Quire\n');
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 8788);
  const { app } = createExampleReceiver({
    secret,
    publicBaseUrl: process.env.RECEIVER_PUBLIC_URL ?? `http://localhost:${port}`,
  });
  serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) =>
    process.stderr.write(`example receiver on http://127.0.0.1:${info.port}/webhooks/quire\n`),
  );
}
