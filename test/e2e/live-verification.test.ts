// Delivered means live and right: `quire start` checks the page of each acknowledged delivery on
// the reference receiving site (loopback HTTPS), and `quire deliveries`, its --json, --problems
// and --stats, the Deliveries tab and the MCP tool list_deliveries say what the check found: a
// correct page is live; after the site starts rewriting the html, the next update is a render
// problem with HTML_MODIFIED and its fix; a site that turned the checks off shows `off`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { ADMIN_TOKEN, signIn } from '../helpers/admin-server.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { quireStdio, runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const SECRET = 'example-site-webhook-secret-000000';

interface Verification {
  state: string;
  code?: string;
  message?: string;
  fix?: string;
  url?: string;
  checks?: { id: string; status: string; code: string }[];
  checkedAt?: string;
  nextCheckAt?: string;
}
interface Item {
  delivery: string;
  site: string;
  event: string;
  slug: string;
  state: string;
  verification: Verification | null;
}

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let siteServer: HttpsApp;
let site: ReturnType<typeof createExampleSite>;
let env: Record<string, string>;
let base: string;

async function deliveries(...args: string[]): Promise<Item[]> {
  const r = await runCli(['deliveries', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Item[];
}

/** The newest delivery of `slug` once its page was checked. */
async function checkedDelivery(slug: string, after: string | null = null): Promise<Item> {
  let found: Item | undefined;
  await waitFor(
    async () => {
      found = (await deliveries('--site', 'notes')).find(
        (d) => d.slug === slug && d.delivery !== after && d.state === 'delivered',
      );
      return !!found?.verification && found.verification.state !== 'pending';
    },
    () => `${JSON.stringify(found)}\n${quire.output()}`,
    30_000,
  );
  return found!;
}

beforeAll(async () => {
  siteServer = await startHttpsApp();
  p = createTempProject({ git: true });
  // Checked as soon as the receiver acknowledges: no delay before the first check.
  p.write('notes/site.yaml', `name: Notes\nlang: en\nurl: ${siteServer.url}\nverifyAfterDelivery: 0s\n`);
  p.write('notes/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  p.write(
    'notes/articles/quoted.md',
    article({ title: 'Quoted', status: 'published', author: 'ann' }, 'She said "hello" and left.\n'),
  );
  p.write('quiet/site.yaml', `name: Quiet\nlang: en\nurl: ${siteServer.url}\nverifyAfterDelivery: false\n`);
  p.write('quiet/articles/hushed.md', article({ title: 'Hushed', status: 'published' }, 'Not checked.\n'));
  p.commit('first articles', '2026-04-01T09:00:00Z');
  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: siteServer.caFile,
    QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /Publishing app: (\S+)\/admin/);
  base = quire.match[1]!.replace('localhost', '127.0.0.1');
  const key = quire.output().match(/key: (pk_notes\.\S+)/)![1]!;
  site = createExampleSite({ secret: SECRET, apiBase: `${base}/v1`, apiKey: key, publicUrl: siteServer.url });
  siteServer.setHandler(site.app.fetch);
  for (const id of ['notes', 'quiet']) {
    const set = await runCli(
      ['webhook', 'set', id, '--url', `${siteServer.url}/webhooks/quire`, '--secret', SECRET],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
  }
}, 180_000);

afterAll(async () => {
  await quire?.stop();
  await siteServer?.close();
  p?.cleanup();
});

describe('the live page after each delivery, with `quire start` and the reference site', { timeout: 180_000 }, () => {
  let firstDelivery: string;

  it('a delivery whose page is correct shows `live`, with the four checks', async () => {
    const r = await runCli(['publish'], env);
    expect(r.code, r.stderr).toBe(0);
    const d = await checkedDelivery('quoted');
    firstDelivery = d.delivery;
    expect(d.verification).toMatchObject({ state: 'live', url: `${siteServer.url}/blog/quoted` });
    expect(d.verification!.code).toBeUndefined();
    expect(d.verification!.checks!.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
      'byline:pass',
      'canonical:pass',
      'html:pass',
      'sitemap:pass',
    ]);
    expect(Date.parse(d.verification!.checkedAt!)).toBeGreaterThan(0);
    const table = await runCli(['deliveries', '--site', 'notes'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/\tresult\tpage$/);
    expect(table.stdout).toMatch(/quoted\t200\t\d+\t.*\tlive\n/);
  });

  it('a site that turned the checks off shows `off`', async () => {
    const [hushed] = await deliveries('--site', 'quiet');
    expect(hushed).toMatchObject({ slug: 'hushed', state: 'delivered', verification: { state: 'off' } });
  });

  it('a page that rewrites the html shows `render problem` with HTML_MODIFIED and its fix, everywhere', async () => {
    site.faults.add('smart-quotes');
    p.write(
      'notes/articles/quoted.md',
      article({ title: 'Quoted', status: 'published', author: 'ann' }, 'She said "hello" and left, twice.\n'),
    );
    p.commit('edit quoted', '2026-04-03T15:30:00Z');
    expect((await runCli(['publish'], env)).code).toBe(0);
    const d = await checkedDelivery('quoted', firstDelivery);
    expect(d.event).toBe('updated');
    expect(d.verification).toMatchObject({ state: 'render_problem', code: 'HTML_MODIFIED' });
    expect(d.verification!.fix).toMatch(/Inject `html` exactly as received/);
    expect(d.verification!.nextCheckAt).toBeDefined(); // the site may still catch up

    const problems = await runCli(['deliveries', '--site', 'notes', '--problems'], env);
    expect(problems.code).toBe(1);
    expect(problems.stdout).toMatch(
      /^quoted\trender problem HTML_MODIFIED\thttps:\/\/127\.0\.0\.1:\d+\/blog\/quoted\t/,
    );
    expect(problems.stdout).toMatch(/\n {2}fix: Inject `html` exactly as received/);
    const asJson = JSON.parse((await runCli(['deliveries', '--site', 'notes', '--problems', '--json'], env)).stdout);
    expect(asJson).toEqual([
      expect.objectContaining({
        delivery: d.delivery,
        slug: 'quoted',
        verification: expect.objectContaining({ code: 'HTML_MODIFIED' }),
      }),
    ]);

    const stats = JSON.parse((await runCli(['deliveries', '--stats', '--json'], env)).stdout) as {
      verification: Record<string, number>;
    };
    expect(stats.verification).toMatchObject({ live: 1, render_problem: 1, unverified: 0, off: 1 });
    expect((await runCli(['deliveries', '--stats'], env)).stdout).toMatch(
      /live pages\s+1 live, 1 render problem, 0 unverified/,
    );

    const admin = await signIn(base);
    const tab = await (await admin.get('/admin/sites/notes/deliveries')).text();
    expect(tab).toContain('Delivered, not right on the site');
    expect(tab).toMatch(/<span class="badge err">render problem<\/span>/);
    expect(tab).toContain('HTML_MODIFIED');
    expect(tab).toMatch(/Fix: Inject `html` exactly as received/);
    expect(tab).toMatch(/<span class="badge ok">live<\/span>/); // the first delivery's check

    const mcp = new Client({ name: 'quire-e2e', version: '1.0.0' });
    await mcp.connect(new StdioClientTransport({ ...quireStdio(['mcp'], env), stderr: 'pipe' }));
    try {
      const res = await mcp.callTool({ name: 'list_deliveries', arguments: { site: 'notes', problems: true } });
      expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
      expect((res.structuredContent as { problems: Item[] }).problems).toEqual([
        expect.objectContaining({
          slug: 'quoted',
          verification: expect.objectContaining({ state: 'render_problem', code: 'HTML_MODIFIED' }),
        }),
      ]);
    } finally {
      await mcp.close();
    }
  });
});
