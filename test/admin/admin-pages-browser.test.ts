// The Publishing app in real Chromium against an in-process server on loopback: what only a
// browser does — reloads after a save, a pasted sign-in link in an open tab, layout on a phone.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../../src/build/build.ts';
import { ADMIN_TOKEN, startAdminServer, type AdminServer } from '../helpers/admin-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

// Browser globals inside page.evaluate callbacks (the project's types are Node's, not the DOM's).
declare const document: any, location: any;

let p: TempProject;
let server: AdminServer;
let browser: Browser;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write('one/articles/first.md', article({ title: 'The first article', status: 'published', publishedAt: '2026-05-01' }));
  expect((await buildDist({ contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://127.0.0.1' })).ok).toBe(true);
  server = await startAdminServer(p);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  p?.cleanup();
});

async function signedIn(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(`${server.url}/admin/sign-in`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/admin`);
  return page;
}

describe('the Publishing app in a browser', { timeout: 60_000 }, () => {
  it('shows a generated secret once; a reload neither shows it again nor replaces it', async () => {
    const page = await signedIn();
    await page.goto(`${server.url}/admin/sites/one/publishing`);
    await page.locator('#method-webhook').check();
    await page.getByLabel('Webhook URL').fill('https://127.0.0.1:9/hook');
    await page.getByLabel(/Generate a secret for me/).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${server.url}/admin/sites/one/publishing`);
    const shown = (await page.locator('#generated-secret').textContent())!.trim();
    expect(shown).toMatch(/^whsec_/);
    expect(server.publishing.store.webhooks.secretOf('one')).toBe(shown);

    await page.reload();
    expect(await page.locator('#generated-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(shown);
    expect(server.publishing.store.webhooks.secretOf('one')).toBe(shown);
    await page.context().close();
  });

  it('signs in when a sign-in link is pasted into a tab already on the sign-in page', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/admin/sign-in`);
    // Same document, new fragment: the browser fires hashchange and loads nothing.
    await page.goto(`${server.url}/admin/sign-in#token=${ADMIN_TOKEN}`);
    await page.waitForURL(`${server.url}/admin`);
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    expect(await page.getByRole('heading', { name: 'Sites' }).count()).toBe(1);
    await page.context().close();
  });
});
