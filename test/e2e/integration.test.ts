// The end-to-end proof: Quire and the example receiving site on loopback (https with a throwaway
// CA); publish; the webhooks land; verify_integration, called through the MCP SDK's own client
// over stdio, passes every check for every article. An update refreshes lastmod and still
// passes. Then the site is broken one way at a time, and exactly the matching check fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite, type SiteFault } from '../../examples/site/site.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { quireStdio, runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';

const SECRET = 'example-site-webhook-secret-000000';

interface Check {
  id: string;
  status: string;
  code: string;
  message: string;
  fix: string | null;
}
interface Report {
  ok: boolean;
  summary: string;
  articles: { slug: string; url: string; checks: Check[] }[];
}

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let siteServer: HttpsApp;
let site: ReturnType<typeof createExampleSite>;
let mcp: Client;
let env: Record<string, string>;
let siteUrl: string;

async function verify(): Promise<Report> {
  const res = await mcp.callTool({ name: 'verify_integration', arguments: { site: 'notes' } });
  expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
  // The same report as text, for clients that show only text.
  const text = (res.content as { type: string; text: string }[])[0]!.text;
  expect(JSON.parse(text)).toEqual(res.structuredContent);
  return res.structuredContent as unknown as Report;
}

const failing = (r: Report) =>
  r.articles.flatMap((a) =>
    a.checks
      .filter((c) => c.status === 'fail' || c.status === 'error')
      .map((c) => ({ slug: a.slug, id: c.id, code: c.code, fix: c.fix })),
  );

beforeAll(async () => {
  // The site's server first: its URL goes into site.yaml. Requests wait for the app below.
  siteServer = await startHttpsApp();
  siteUrl = siteServer.url;

  p = createTempProject({ git: true });
  p.write('notes/site.yaml', `name: Notes\nlang: en\nurl: ${siteUrl}\n`);
  p.write('notes/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  p.write('notes/authors/bo.yaml', 'name: Bo Writer\n');
  p.write(
    'notes/articles/with-picture.md',
    article(
      { title: 'With a picture', status: 'published', author: 'ann' },
      'A photo:\n\n![The bay](https://images.example.com/bay.png)\n\nAnd a caption.\n',
    ),
  );
  p.write(
    'notes/articles/quoted.md',
    article({ title: 'Quoted', status: 'published', author: 'bo' }, 'She said "hello" and left.\n\n- one\n- two\n'),
  );
  p.write('notes/articles/draft.md', article({ title: 'Not yet', status: 'draft', author: 'bo' }));
  p.commit('first articles', '2026-04-01T09:00:00Z');

  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: siteServer.caFile,
    QUIRE_ADMIN_TOKEN: 'e2e-admin-token-0000000000',
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /Publishing app: (\S+)\/admin/);
  const apiBase = `${quire.match[1]!.replace('localhost', '127.0.0.1')}/v1`;
  const key = quire.output().match(/key: (pk_notes\.\S+)/)![1]!;
  site = createExampleSite({ secret: SECRET, apiBase, apiKey: key, publicUrl: siteUrl });
  siteServer.setHandler(site.app.fetch);

  const set = await runCli(['webhook', 'set', 'notes', '--url', `${siteUrl}/webhooks/quire`, '--secret', SECRET], env);
  expect(set.code, set.stderr).toBe(0);

  const transport = new StdioClientTransport({ ...quireStdio(['mcp'], env), stderr: 'pipe' });
  mcp = new Client({ name: 'quire-e2e', version: '1.0.0' });
  await mcp.connect(transport);
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await quire?.stop();
  await siteServer?.close();
  p?.cleanup();
});

describe('Quire → webhook → example site → verify_integration', { timeout: 180_000 }, () => {
  it('publishes to the example site, and every check passes for every article', async () => {
    const r = await runCli(['publish'], env);
    expect(r.code, r.stderr).toBe(0);
    expect([...site.articles.keys()].sort()).toEqual(['quoted', 'with-picture']);
    expect(site.articles.get('with-picture')!.author).toEqual({ name: 'Ann Example', url: 'https://ann.example.org/' });

    const tools = (await mcp.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([
      'check_conformance',
      'get_api_key',
      'get_article',
      'list_articles',
      'list_deliveries',
      'list_sites',
      'test_webhook',
      'verify_integration',
    ]);
    expect(tools.find((t) => t.name === 'verify_integration')!.annotations?.readOnlyHint).toBe(true);

    const report = await verify();
    expect(failing(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.articles).toHaveLength(2);
    for (const a of report.articles) {
      expect(a.url).toBe(`${siteUrl}/blog/${a.slug}`); // from the receiver's {url} reply
      expect(a.checks.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
        'byline:pass',
        'canonical:pass',
        'html:pass',
        'sitemap:pass',
      ]);
    }
  });

  it('an update refreshes lastmod through the `updated` event, and verification still passes', async () => {
    const before = site.articles.get('quoted')!.updatedAt;
    p.write(
      'notes/articles/quoted.md',
      article(
        { title: 'Quoted', status: 'published', author: 'bo' },
        'She said "hello" and left, twice.\n\n- one\n- two\n',
      ),
    );
    p.commit('edit quoted', '2026-04-03T15:30:00Z');
    const r = await runCli(['publish'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/updated\s+quoted/);
    expect(site.articles.get('quoted')!.updatedAt).toBe('2026-04-03T15:30:00Z');
    expect(before).not.toBe('2026-04-03T15:30:00Z');
    expect(failing(await verify())).toEqual([]);
  });

  const cases: [SiteFault, string, string][] = [
    ['build-time-lastmod', 'sitemap', 'LASTMOD_BUILD_TIME'],
    ['missing-from-sitemap', 'sitemap', 'SITEMAP_URL_MISSING'],
    ['no-canonical', 'canonical', 'CANONICAL_MISSING'],
    ['canonical-to-home', 'canonical', 'CANONICAL_MISMATCH'],
    ['canonical-trailing-slash', 'canonical', 'CANONICAL_MISMATCH'],
    ['lazy-images', 'html', 'HTML_MODIFIED'],
    ['smart-quotes', 'html', 'HTML_MODIFIED'],
    ['escaped-html', 'html', 'HTML_ESCAPED'],
    ['html-only-in-hydration-json', 'html', 'HTML_ONLY_IN_SCRIPT'],
    ['no-byline', 'byline', 'BYLINE_MISSING'],
    ['byline-only-in-json-ld', 'byline', 'BYLINE_NOT_VISIBLE'],
    ['byline-not-linked', 'byline', 'BYLINE_NOT_LINKED'],
  ];

  it.each(cases)('a site with "%s" fails exactly the %s check, with %s and a fix', async (fault, check, code) => {
    site.faults.add(fault);
    try {
      const problems = failing(await verify());
      expect(problems.length).toBeGreaterThan(0);
      expect(new Set(problems.map((f) => f.id))).toEqual(new Set([check]));
      expect(problems.map((f) => f.code)).toContain(code);
      for (const f of problems) expect(f.fix, `${f.code} has a fix`).toBeTruthy();
    } finally {
      site.faults.delete(fault);
    }
  });

  it('a site that does not refresh lastmod on `updated` fails the sitemap check as stale', async () => {
    site.faults.add('stale-lastmod');
    try {
      p.write(
        'notes/articles/with-picture.md',
        article(
          { title: 'With a picture', status: 'published', author: 'ann' },
          'A photo:\n\n![The bay](https://images.example.com/bay.png)\n\nAnd a longer caption.\n',
        ),
      );
      p.commit('edit picture', '2026-04-05T08:00:00Z');
      expect((await runCli(['publish'], env)).code).toBe(0);
      const problems = failing(await verify());
      expect(problems).toEqual([
        expect.objectContaining({ slug: 'with-picture', id: 'sitemap', code: 'LASTMOD_STALE' }),
      ]);
    } finally {
      site.faults.delete('stale-lastmod');
    }
  });

  it('`quire verify` prints the same report as a table', async () => {
    const r = await runCli(['verify', 'notes'], env);
    expect(r.stdout).toMatch(/with-picture\s+https:\/\/127\.0\.0\.1:\d+\/blog\/with-picture/);
    expect(r.stdout).toMatch(/pass\s+canonical/);
    // The stale lastmod from the previous test is still there (the site did not refresh it).
    expect(r.stdout).toMatch(/FAIL\s+sitemap\s+LASTMOD_STALE/);
    expect(r.code).toBe(1);
  });

  it('check_conformance passes against the example site; one that accepts forged requests fails exactly that rule', async () => {
    type Conformance = { ok: boolean; testSlug: string; rules: { id: string; ok: boolean; warning?: boolean }[] };
    const check = async () => {
      const res = await mcp.callTool({ name: 'check_conformance', arguments: { site: 'notes' } });
      expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
      return res.structuredContent as unknown as Conformance;
    };
    const report = await check();
    expect(report.rules.filter((r) => !r.ok || r.warning)).toEqual([]);
    expect(report.ok).toBe(true);
    // The test article was never looked up in the Content API (the site knows it by its slug).
    expect(site.articles.get(report.testSlug)).toMatchObject({ author: null });
    site.faults.add('accepts-forged');
    try {
      const broken = await check();
      expect(broken.ok).toBe(false);
      expect(broken.rules.filter((r) => !r.ok).map((r) => r.id)).toEqual(['forged']);
    } finally {
      site.faults.delete('accepts-forged');
    }
  });
});
