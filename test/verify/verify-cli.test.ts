// `quire verify` against a real plain-http site on loopback: one base per run (the --url, else
// site.yaml's url) for the sitemap and every page, receivers' remembered reply URLs moved onto
// it, and a plain http site checked like any other (the address rules still apply).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/state-store.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SERVER_SECRET = 'v'.repeat(40);
let server: http.Server;
let base: string;
const requested: string[] = [];
let p: TempProject;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/blog/a</loc><lastmod>2026-01-02</lastmod></url></urlset>`,
      );
    } else if (req.url === '/blog/a') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>A</title><link rel="canonical" href="${base}/blog/a"></head><body><article><p>Text of A.</p></article></body></html>`,
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());
afterEach(() => {
  requested.length = 0;
  p?.cleanup();
});

const env = (extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_SECRET: SERVER_SECRET,
  ...extra,
});

/** A site with one article, built, whose receiver once replied that it landed on another host. */
async function project(siteUrl: string): Promise<void> {
  p = createTempProject();
  writeSite(p, 'one', `name: One\nlang: en\nurl: ${siteUrl}\n`);
  p.write(
    'one/articles/a.md',
    article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-02' }, 'Text of A.\n'),
  );
  expect((await runCli(['build'], env())).code).toBe(0);
  const store = openStateStore(p.stateDir, SERVER_SECRET);
  try {
    const id = await store.outbox.enqueue(
      { siteId: 'one', slug: 'a', event: 'published', body: Buffer.from('{}'), origin: 'publish' },
      Date.now(),
    );
    const attempt = {
      url: 'https://old.example.com/webhooks/quire',
      startedAt: Date.now(),
      durationMs: 5,
      status: 200,
      error: null,
      replyUrl: 'https://old.example.com/blog/a',
      replyId: 'a',
    };
    await store.outbox.recordAttempt(id, attempt, { state: 'delivered' }, Date.now());
  } finally {
    await store.close();
  }
}

interface Report {
  baseUrl: string;
  articles: { url: string; checks: { id: string; code: string; message: string }[] }[];
}

describe('quire verify', { timeout: 60_000 }, () => {
  it('--url is the one base: the sitemap and the page (a remembered reply URL included) are read there, over plain http', async () => {
    await project('https://one.example.com');
    const r = await runCli(['verify', 'one', '--url', base, '--json'], env({ QUIRE_ALLOW_PRIVATE_TARGETS: '1' }));
    const report = JSON.parse(r.stdout) as Report;
    expect(report.baseUrl).toBe(base);
    expect(report.articles.map((a) => a.url)).toEqual([`${base}/blog/a`]);
    expect(requested).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml', '/blog/a']));
    const checks = Object.fromEntries(report.articles[0]!.checks.map((c) => [c.id, c.code]));
    expect(checks.sitemap).not.toMatch(/FETCH|SITEMAP_NOT_FOUND/);
    expect(checks.canonical).toBe('CANONICAL_OK');
    expect(r.stdout + r.stderr).not.toMatch(/webhook URLs|webhook targets|old\.example\.com/);
  });

  it("without --url, site.yaml's url is the base for the pages too, not the reply URL's host", async () => {
    await project(base);
    const r = await runCli(['verify', 'one', '--json'], env({ QUIRE_ALLOW_PRIVATE_TARGETS: '1' }));
    const report = JSON.parse(r.stdout) as Report;
    expect(report.articles.map((a) => a.url)).toEqual([`${base}/blog/a`]);
    expect(requested).toContain('/blog/a');
  });

  it('a private address is still refused, in words about the site being verified', async () => {
    await project(base);
    const r = await runCli(['verify', 'one', '--json'], env());
    const report = JSON.parse(r.stdout) as Report;
    const messages = report.articles[0]!.checks.map((c) => c.message).join('\n');
    expect(messages).toMatch(/127\.0\.0\.1 is a loopback address; the site being verified must be on a public host/);
    expect(messages).not.toMatch(/webhook/);
    expect(requested).toEqual([]);
  });
});
