// The verifier's checks against a real HTTPS site on loopback, one situation at a time, plus
// the lastmod and URL rules on their own.
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.ts';
import { compareLastmod } from '../../src/verify/lastmod.ts';
import { urlDifference } from '../../src/verify/urls.ts';
import { verifyIntegration, type ArticleToVerify } from '../../src/verify/verify-integration.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';

const HTML =
  '<p>Hello <a href="https://example.com/x">there</a>.</p>\n<img src="https://img.example.com/a.png" alt="A">';
const UPDATED = '2026-04-03T15:30:00Z';
const site = useHttpsReceiver();
let client: SafeClient;
let routes: Record<
  string,
  { status?: number; headers?: Record<string, string>; body: string | Buffer; hang?: boolean }
>;

const page = (opts: { head?: string; body?: string } = {}) =>
  `<!doctype html><html><head><title>T</title>${opts.head ?? `<link rel="canonical" href="${site.url}/blog/a">`}</head><body>${opts.body ?? `<p class="byline">By <a href="https://ann.example.org/">Ann Example</a></p><div>${HTML}</div>`}</body></html>`;
const sitemap = (entries: string) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`;
const goodSitemap = () => sitemap(`<url><loc>${site.url}/blog/a</loc><lastmod>${UPDATED}</lastmod></url>`);
const article: ArticleToVerify = {
  slug: 'a',
  html: HTML,
  updatedAt: UPDATED,
  author: { name: 'Ann Example', url: 'https://ann.example.org/' },
  replyUrl: null,
};

function serve(overrides: typeof routes = {}) {
  routes = {
    '/robots.txt': { body: `Sitemap: ${site.url}/sitemap.xml\n` },
    '/sitemap.xml': { body: goodSitemap() },
    '/blog/a': { body: page(), headers: { 'content-type': 'text/html; charset=utf-8' } },
    ...overrides,
  };
}

async function run(a: ArticleToVerify = article) {
  const report = await verifyIntegration(
    { client, timeoutMs: 400, now: () => Date.parse('2026-05-01T00:00:00Z') },
    { siteId: 's', baseUrl: site.url, articlePath: '/blog/{slug}', articles: [a] },
  );
  return Object.fromEntries(report.articles[0]!.checks.map((c) => [c.id, c]));
}

beforeAll(async () => {
  site.respond((req) => {
    const r = routes[req.path.split('?')[0]!];
    if (!r) return { status: 404, body: 'not found' };
    return r.hang ? { hang: true } : { status: r.status ?? 200, headers: r.headers ?? {}, body: r.body };
  });
  client = createSafeClient({ allowPrivate: true, ca: site.caPem, log: () => {} });
});
afterAll(async () => {
  client.close();
});

describe('verify_integration checks', () => {
  it('a correct page passes all four', async () => {
    serve();
    const c = await run();
    expect(Object.values(c).map((x) => `${x.id}:${x.status}:${x.code}`)).toEqual([
      'sitemap:pass:LASTMOD_MATCHES',
      'canonical:pass:CANONICAL_OK',
      'html:pass:HTML_VERBATIM',
      'byline:pass:BYLINE_OK',
    ]);
  });

  it('follows a sitemap index to a gzipped sitemap found at the usual location', async () => {
    serve({
      '/robots.txt': { body: 'User-agent: *\n' },
      '/sitemap.xml': { status: 404, body: '' },
      '/sitemap_index.xml': {
        body: `<sitemapindex><sitemap><loc>${site.url}/s/1.xml.gz</loc></sitemap></sitemapindex>`,
      },
      '/s/1.xml.gz': { body: zlib.gzipSync(goodSitemap()) },
    });
    expect((await run()).sitemap).toMatchObject({ status: 'pass', evidence: `${site.url}/s/1.xml.gz` });
  });

  it('tells a trailing-slash mismatch in the sitemap from a missing URL', async () => {
    serve({
      '/sitemap.xml': { body: sitemap(`<url><loc>${site.url}/blog/a/</loc><lastmod>${UPDATED}</lastmod></url>`) },
    });
    expect((await run()).sitemap).toMatchObject({ status: 'fail', code: 'SITEMAP_URL_MISMATCH' });
  });

  it('a canonical pushed into <body> by HTML5 parsing fails; a conflicting Link header fails', async () => {
    serve({ '/blog/a': { body: page({ head: `<div>oops</div><link rel="canonical" href="${site.url}/blog/a">` }) } });
    expect((await run()).canonical).toMatchObject({ status: 'fail', code: 'CANONICAL_NOT_IN_HEAD' });
    serve({ '/blog/a': { body: page(), headers: { link: `<${site.url}/other>; rel="canonical"` } } });
    expect((await run()).canonical).toMatchObject({ status: 'fail', code: 'CANONICAL_CONFLICT' });
    serve({ '/blog/a': { body: page({ head: '<link rel="canonical" href="">' }) } });
    expect((await run()).canonical).toMatchObject({ status: 'fail', code: 'CANONICAL_EMPTY' });
    serve({
      '/blog/a': {
        body: page({
          head: `<link rel="canonical" href="${site.url}/blog/a"><link rel="canonical" href="${site.url}/blog/b">`,
        }),
      },
    });
    expect((await run()).canonical).toMatchObject({ status: 'fail', code: 'CANONICAL_MULTIPLE' });
  });

  it('relative canonicals resolve against <base>', async () => {
    serve({ '/blog/a': { body: page({ head: `<base href="${site.url}/blog/"><link rel="canonical" href="a">` }) } });
    expect((await run()).canonical).toMatchObject({ status: 'pass' });
  });

  it('html: an HTML5-equivalent spelling passes with a note; whitespace changes warn; re-rendered markup fails', async () => {
    serve({
      '/blog/a': {
        body: page({
          body: `<p>By <a href="https://ann.example.org/">Ann Example</a></p><div><p>Hello <a href='https://example.com/x'>there</a>.</p>\n<img src="https://img.example.com/a.png" alt="A" /></div>`,
        }),
      },
    });
    expect((await run()).html).toMatchObject({ status: 'pass', code: 'HTML_EQUIVALENT' });
    serve({
      '/blog/a': {
        body: page({
          body: `<p>By <a href="https://ann.example.org/">Ann Example</a></p><div><p>Hello   <a href="https://example.com/x">there</a>.</p>   <img src="https://img.example.com/a.png" alt="A"></div>`,
        }),
      },
    });
    expect((await run()).html).toMatchObject({ status: 'warn', code: 'HTML_WHITESPACE_ONLY' });
    serve({
      '/blog/a': {
        body: page({
          body: `<p>By <a href="https://ann.example.org/">Ann Example</a></p><div><div>Hello <a href="https://example.com/x">there</a>.</div><img src="https://img.example.com/a.png" alt="A"></div>`,
        }),
      },
    });
    expect((await run()).html).toMatchObject({ status: 'fail', code: 'HTML_RERENDERED' });
  });

  it('a byline split by NBSP and case still matches; an article without author is skipped', async () => {
    serve({
      '/blog/a': {
        body: page({ body: `<p>BY&nbsp;<a href="https://ann.example.org">ann&nbsp;example</a></p><div>${HTML}</div>` }),
      },
    });
    expect((await run()).byline).toMatchObject({ status: 'pass' });
    serve();
    expect((await run({ ...article, author: null })).byline).toMatchObject({ status: 'skipped' });
    serve({
      '/blog/a': {
        body: page({ body: `<p>By <a href="https://elsewhere.example/">Ann Example</a></p><div>${HTML}</div>` }),
      },
    });
    expect((await run()).byline).toMatchObject({ status: 'fail', code: 'BYLINE_LINK_MISMATCH' });
  });

  it("a redirecting article URL is reported; the verifier's own trouble is `error`, not `fail`", async () => {
    serve({
      '/blog/a': { status: 301, headers: { location: '/posts/a' }, body: '' },
      '/posts/a': { body: page({ head: `<link rel="canonical" href="${site.url}/posts/a">` }) },
    });
    const redirected = await run();
    expect(redirected.canonical).toMatchObject({ status: 'warn', code: 'PAGE_REDIRECTS' });
    serve({ '/blog/a': { status: 403, body: 'bots go away' } });
    expect((await run()).html).toMatchObject({ status: 'error', code: 'FETCH_BLOCKED' });
    serve({ '/blog/a': { hang: true, body: '' } });
    expect((await run()).canonical).toMatchObject({ status: 'error', code: 'FETCH_TIMEOUT' });
  });
});

describe('lastmod rules', () => {
  const ctx = { now: Date.parse('2026-05-01T00:00:00Z'), sitemapLastmods: [] as string[] };
  it.each([
    ['2026-04-03T15:30:00Z', 'pass', 'LASTMOD_MATCHES'],
    ['2026-04-03T17:30:00+02:00', 'pass', 'LASTMOD_MATCHES'],
    ['2026-04-03T15:30Z', 'pass', 'LASTMOD_MATCHES'],
    ['2026-04-03', 'pass', 'LASTMOD_DATE_ONLY'],
    ['2026-04-04', 'pass', 'LASTMOD_DATE_ONLY'], // 15:30Z is already the 4th at UTC+9
    ['2026-04-05', 'fail', 'LASTMOD_MISMATCH'],
    ['2026-04-01', 'fail', 'LASTMOD_STALE'],
    ['2026-04-03T15:30:00', 'warn', 'LASTMOD_NO_TIMEZONE'],
    ['2026-04-03T15:29:59Z', 'fail', 'LASTMOD_STALE'],
    ['2026-04-30T23:00:00Z', 'fail', 'LASTMOD_BUILD_TIME'],
    ['yesterday', 'fail', 'LASTMOD_INVALID'],
  ])('%s vs 2026-04-03T15:30:00Z → %s %s', (lastmod, status, code) => {
    expect(compareLastmod(lastmod, UPDATED, ctx)).toMatchObject({ status, code });
  });

  it("a lastmod shared by most entries reads as the sitemap's build time", () => {
    const v = compareLastmod('2026-04-20T00:00:00Z', UPDATED, {
      now: ctx.now,
      sitemapLastmods: ['2026-04-20T00:00:00Z', '2026-04-20T00:00:00Z', '2026-04-20T00:00:00Z'],
    });
    expect(v).toMatchObject({ code: 'LASTMOD_BUILD_TIME' });
  });
});

describe('URL differences', () => {
  it('name the part that differs, and ignore the fragment', () => {
    expect(urlDifference('https://a.example/x', 'https://a.example/x#top')).toBeNull();
    expect(urlDifference('https://a.example/x', 'http://a.example/x')).toMatch(/scheme/);
    expect(urlDifference('https://a.example/x', 'https://www.a.example/x')).toMatch(/host/);
    expect(urlDifference('https://a.example/x', 'https://a.example/x/')).toMatch(/trailing slash/);
    expect(urlDifference('https://a.example/x', 'https://a.example/x?ref=1')).toMatch(/query/);
    expect(urlDifference('https://A.example:443/x', 'https://a.example/x')).toBeNull();
  });
});
