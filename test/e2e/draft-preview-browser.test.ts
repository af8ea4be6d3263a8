// Draft preview end to end: Quire serving, the reference site (examples/site) on local HTTPS with
// its preview route, `quire preview` making the link, and Chromium opening it. The site checks
// the token with the receiver kit and fetches the draft with the preview key; a tampered or
// expired link, or another article's, opens nothing.
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let siteServer: HttpsApp;
let browser: Browser;
let env: Record<string, string>;

beforeAll(async () => {
  siteServer = await startHttpsApp();
  const siteUrl = siteServer.url;

  p = createTempProject();
  p.write(
    'notes/site.yaml',
    `name: Notes\nlang: en\nurl: ${siteUrl}\npreviewUrl: ${siteUrl}/api/preview?slug={slug}&token={token}\n`,
  );
  p.write('notes/articles/live.md', article({ title: 'Live already', status: 'published', publishedAt: '2026-01-01' }));
  p.write(
    'notes/articles/plans.md',
    article({ title: 'Secret plans', status: 'draft' }, 'Nobody has read this yet.\n'),
  );
  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_SECRET: 'p'.repeat(40),
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /Content API on (\S+)\/v1/);
  const keys = JSON.parse((await runCli(['keys', '--json'], env)).stdout) as { key: string; previewKey: string }[];
  const site = createExampleSite({
    secret: 'unused-webhook-secret-000000000',
    apiBase: `${quire.match[1]}/v1`,
    apiKey: keys[0]!.key,
    previewKey: keys[0]!.previewKey,
    publicUrl: siteUrl,
  });
  siteServer.setHandler(site.app.fetch);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--ignore-certificate-errors'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await quire?.stop();
  await siteServer?.close();
  p?.cleanup();
});

async function open(url: string) {
  const page = await browser.newPage();
  const res = await page.goto(url);
  const text = await page.locator('body').innerText();
  await page.close();
  return { status: res!.status(), headers: res!.headers(), text };
}

describe('a draft preview on the site', { timeout: 120_000 }, () => {
  it('opens the draft from the printed link, uncached and unindexed', async () => {
    const made = await runCli(['preview', 'notes', 'plans', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    const { url } = JSON.parse(made.stdout) as { url: string };
    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Secret plans');
    expect(page.text).toContain('Nobody has read this yet.');
    expect(page.text).toMatch(/Preview of a draft article, until \S+Z\. Not public\./);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex');
  });

  it("opens nothing with a tampered link, another article's link, or an expired one", async () => {
    const { url, token } = JSON.parse((await runCli(['preview', 'notes', 'plans', '--json'], env)).stdout) as {
      url: string;
      token: string;
    };
    const tampered = url.replace(encodeURIComponent(token), encodeURIComponent(`${token.slice(0, -2)}AA`));
    const forged = await open(tampered);
    expect(forged.status).toBe(403);
    expect(forged.text).not.toContain('Nobody has read this yet.');
    const other = await open(url.replace('slug=plans', 'slug=live'));
    expect(other.status).toBe(403);
    expect(other.text).toContain('is for the article "plans"');
    const short = JSON.parse((await runCli(['preview', 'notes', 'plans', '--ttl', '1s', '--json'], env)).stdout) as {
      url: string;
      expiresAt: string;
    };
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(short.expiresAt) - Date.now()) + 50));
    const expired = await open(short.url);
    expect(expired.status).toBe(410);
    expect(expired.text).not.toContain('Nobody has read this yet.');
  });
});
