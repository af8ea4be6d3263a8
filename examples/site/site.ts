// A reference receiving site: what a site owner can start from.
// - POST /webhooks/quire: verified with Quire's receiver kit (raw body), applied in the order
//   Quire sent the deliveries (webhook-timestamp), upserted by article.id; the article's author
//   and updatedAt come from GET /v1/articles/{slug} (a webhook payload has neither); replies
//   {url, id} (receive-webhook.ts). `quire conformance` runs it through every rule.
// - GET /blog/{slug}: the article page: a self-referencing canonical, the byline (linked to the
//   author's url when there is one), and `html` injected exactly as received.
// - GET /sitemap.xml (announced in /robots.txt): every article with lastmod = its updatedAt,
//   refreshed on every `updated` event.
// - GET /api/preview?slug=…&token=… (when given the site's preview key): a draft preview. The
//   token (from `quire preview` or the admin, via site.yaml's previewUrl) is checked with the
//   receiver kit, then the draft is fetched with the preview key, server-side, and shown
//   uncached and unindexed. This is the route site.yaml's previewUrl points at. A link to a
//   branch's preview (`quire preview --ref`) names the branch in its token (`checked.ref`): the
//   article is fetched with `Quire-Ref: <branch>`, so it is that branch's version.
import { Hono } from 'hono';
import { verifyPreviewToken } from '../../src/receiver/verify-webhook.ts';
import { receiveWebhook, type ApiArticle } from './receive-webhook.ts';

export interface StoredArticle {
  id: string;
  slug: string;
  title: string;
  metaDescription: string;
  html: string;
  updatedAt: string | null;
  author: { name: string; url: string | null } | null;
  /** The `webhook-timestamp` of the delivery applied (seconds): an older one changes nothing. */
  sentAt: number;
}

/**
 * Deliberate mistakes, for showing what verify_integration and `quire conformance` catch (their
 * own tests use them). A real site has none of these on.
 */
export type SiteFault =
  | 'stale-lastmod' // lastmod not refreshed on `updated`
  | 'build-time-lastmod' // lastmod = when the sitemap was generated
  | 'missing-from-sitemap'
  | 'no-canonical'
  | 'canonical-to-home'
  | 'canonical-trailing-slash'
  | 'lazy-images' // a template adds loading="lazy" to every <img>
  | 'smart-quotes' // a typography filter rewrites quotes
  | 'escaped-html' // html printed as text
  | 'html-only-in-hydration-json'
  | 'no-byline'
  | 'byline-only-in-json-ld'
  | 'byline-not-linked'
  // What a receiver does with deliveries (`quire conformance`):
  | 'accepts-forged' // a request that fails verification is used all the same
  | 'duplicates-on-redelivery' // a `published` for an article it has adds a second one
  | 're-serializes-body' // verifies JSON.stringify(JSON.parse(body)), not the bytes received
  | 'bearer-only' // checks the Bearer token and never the signature
  | 'accepts-out-of-date' // applies an older delivery that arrives after a newer one
  | 'reply-url-not-canonical'; // replies the print view's URL, whose canonical is the article page

export interface ExampleSiteOptions {
  /** The webhook secret registered in Quire. */
  secret: string;
  /** Quire's Content API base, e.g. https://content.example.com/v1, and this site's key. */
  apiBase: string;
  apiKey: string;
  /**
   * The site's preview key (pv_<site>.…, from `quire keys`), for GET /api/preview. Kept on the
   * server: it reads drafts. Without it the route answers 404.
   */
  previewKey?: string;
  /** This site's public base URL, e.g. https://www.example.com */
  publicUrl: string;
  faults?: Set<SiteFault>;
  fetchImpl?: typeof fetch;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function createExampleSite(opts: ExampleSiteOptions) {
  const articles = new Map<string, StoredArticle>();
  const faults = opts.faults ?? new Set<SiteFault>();
  const doFetch = opts.fetchImpl ?? fetch;
  const pageUrl = (slug: string) => new URL(`/blog/${encodeURIComponent(slug)}`, opts.publicUrl).href;
  const printUrl = (slug: string) => new URL(`/print/blog/${encodeURIComponent(slug)}`, opts.publicUrl).href;
  const app = new Hono();

  app.post('/webhooks/quire', async (c) => {
    const raw = Buffer.from(await c.req.arrayBuffer()); // verify the bytes, not re-serialized JSON
    const answer = await receiveWebhook(raw, c.req.raw.headers, {
      secret: opts.secret,
      articles,
      faults,
      replyUrl: (slug) => (faults.has('reply-url-not-canonical') ? printUrl(slug) : pageUrl(slug)),
      lookUp: fetchMatchingArticle,
    });
    return c.json(answer.body, answer.status);
  });

  /**
   * The API may not serve the new build yet when the webhook arrives (a separate server picks it
   * up a moment later): wait until its html is the payload's, for a few seconds at most.
   */
  async function fetchMatchingArticle(slug: string, html: string): Promise<ApiArticle | null> {
    let last: ApiArticle | null = null;
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const res = await doFetch(`${opts.apiBase}/articles/${encodeURIComponent(slug)}`, {
          headers: { authorization: `Bearer ${opts.apiKey}` },
        });
        if (res.ok) {
          last = (await res.json()) as ApiArticle;
          if (last.html === html) return last;
        }
      } catch {
        // The API out of reach for a moment (a kept-alive connection it had just closed): try again.
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return last;
  }

  app.get('/blog/:slug', (c) => {
    const a = articles.get(c.req.param('slug'));
    if (!a) return c.notFound();
    return c.html(renderPage(a, pageUrl(a.slug), opts.publicUrl, faults));
  });

  // A print view, canonical to the article page; only the reply-url-not-canonical mistake has it.
  app.get('/print/blog/:slug', (c) => {
    const a = articles.get(c.req.param('slug'));
    if (!a || !faults.has('reply-url-not-canonical')) return c.notFound();
    return c.html(renderPage(a, pageUrl(a.slug), opts.publicUrl, faults));
  });

  app.get('/api/preview', async (c) => {
    const previewKey = opts.previewKey;
    const slug = c.req.query('slug') ?? '';
    const token = c.req.query('token') ?? '';
    const privately = {
      'cache-control': 'private, no-store',
      'x-robots-tag': 'noindex',
      'referrer-policy': 'no-referrer',
    };
    if (!previewKey) return c.notFound();
    const site = previewKey.slice(3, previewKey.indexOf('.'));
    const checked = verifyPreviewToken(token, previewKey, { slug, site });
    if (!checked.ok)
      return c.text(
        `This preview link does not work: ${checked.message}. Ask for a new one.`,
        checked.reason === 'expired' ? 410 : 403,
        privately,
      );
    const res = await doFetch(`${opts.apiBase}/articles/${encodeURIComponent(slug)}`, {
      headers: {
        authorization: `Bearer ${previewKey}`,
        // The branch the signed token names, and only that: a ref is never taken from the query.
        ...(checked.ref ? { 'quire-ref': checked.ref } : {}),
      },
    });
    if (!res.ok)
      return c.text(
        `The article "${slug}" is not there any more (the Content API answered ${res.status}).`,
        404,
        privately,
      );
    // The API's article (not a webhook payload): metaDescription may be null, it has no id.
    const draft = (await res.json()) as Omit<StoredArticle, 'id' | 'metaDescription' | 'sentAt'> & {
      metaDescription: string | null;
      status?: string;
    };
    const page = renderPage(
      { ...draft, id: slug, metaDescription: draft.metaDescription ?? '', author: draft.author ?? null, sentAt: 0 },
      pageUrl(slug),
      opts.publicUrl,
      new Set(['no-canonical']),
      {
        banner: `Preview of a ${draft.status ?? 'draft'} article${checked.ref ? ` on the branch ${checked.ref}` : ''}, until ${checked.expiresAt}. Not public.`,
      },
    );
    return c.html(page, 200, privately);
  });

  app.get('/robots.txt', (c) =>
    c.text(`User-agent: *\nAllow: /\nSitemap: ${new URL('/sitemap.xml', opts.publicUrl).href}\n`),
  );

  app.get('/sitemap.xml', (c) => {
    const generatedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const entries = [...articles.values()]
      .filter(() => !faults.has('missing-from-sitemap'))
      .map((a) => {
        const lastmod = faults.has('build-time-lastmod') ? generatedAt : a.updatedAt;
        return `  <url><loc>${escapeHtml(pageUrl(a.slug))}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
      });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
    return c.body(xml, 200, { 'content-type': 'application/xml; charset=utf-8' });
  });

  return { app, articles, faults };
}

function renderPage(
  a: StoredArticle,
  url: string,
  home: string,
  faults: Set<SiteFault>,
  extra: { banner?: string } = {},
): string {
  const canonical = faults.has('no-canonical')
    ? ''
    : `<link rel="canonical" href="${escapeHtml(faults.has('canonical-to-home') ? home : faults.has('canonical-trailing-slash') ? `${url}/` : url)}">`;
  let body = a.html; // as received: no Markdown re-rendering, no sanitizing again, no "improvements"
  if (faults.has('lazy-images')) body = body.replace(/<img /g, '<img loading="lazy" ');
  if (faults.has('smart-quotes')) body = body.replace(/"([^"<>]*)"(?=[^<>]*<)/g, '“$1”').replace(/'/g, '’');
  if (faults.has('escaped-html')) body = escapeHtml(a.html);
  if (faults.has('html-only-in-hydration-json'))
    body = `<div id="root"></div><script type="application/json" id="__DATA__">${JSON.stringify({ html: a.html }).replace(/</g, '\\u003c')}</script>`;
  const byline =
    !a.author || faults.has('no-byline') || faults.has('byline-only-in-json-ld')
      ? ''
      : `<p class="byline">By ${a.author.url && !faults.has('byline-not-linked') ? `<a href="${escapeHtml(a.author.url)}" rel="author">${escapeHtml(a.author.name)}</a>` : escapeHtml(a.author.name)}</p>`;
  const jsonLd =
    a.author && faults.has('byline-only-in-json-ld')
      ? `<script type="application/ld+json">${JSON.stringify({ '@type': 'Article', author: { '@type': 'Person', name: a.author.name } })}</script>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${extra.banner ? '<meta name="robots" content="noindex">' : ''}
<title>${escapeHtml(a.title)}</title>
<meta name="description" content="${escapeHtml(a.metaDescription)}">
${canonical}
${jsonLd}
</head>
<body>
<header><a href="/">Home</a></header>
${extra.banner ? `<p class="preview-banner" role="status">${escapeHtml(extra.banner)}</p>` : ''}
<article>
<h1>${escapeHtml(a.title)}</h1>
${byline}
<div class="article-body">${body}</div>
</article>
</body>
</html>
`;
}
