// The Publishing tab in real Chromium: sign in, copy the key, save a webhook pointing at a local
// HTTPS receiver, Test connection (success, then a wrong secret), the delivery log and
// Redeliver; CSRF from another origin and requests without a session are refused.
// Screenshots of the main screens go to test-artifacts/admin/ (not committed).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

// Browser globals inside page.evaluate callbacks (the project's types are Node's, not the DOM's).
declare const document: any, window: any, navigator: any;

const ADMIN_TOKEN = 'admin-token-for-browser-tests-0001';
const SECRET = 'receiver-secret-for-browser-test-42';
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/admin');

let p: TempProject;
const receiver = useHttpsReceiver();
let server: Awaited<ReturnType<typeof startCli>>;
let browser: Browser;
let base: string;
let key: string;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write('one/authors/ann.yaml', 'name: Ann\n');
  p.write(
    'one/articles/first.md',
    article(
      {
        title: 'The first article',
        status: 'published',
        author: 'ann',
        publishedAt: '2026-05-01',
        updatedAt: '2026-05-02',
      },
      'Hello.\n',
    ),
  );
  p.write('one/articles/later.md', article({ title: 'A draft for later', status: 'draft' }));
  receiver.respond((req) =>
    verifyWebhook(req.rawBody, req.headers, SECRET).ok
      ? { status: 200, json: { url: 'https://one.example.com/blog/first', id: 'first' } }
      : { status: 401 },
  );
  server = await startCli(
    ['start'],
    {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
      QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      PORT: '0',
    },
    /Publishing app: (\S+)\/admin /,
  );
  base = server.match[1]!;
  key = server.output().match(/key: (pk_one\.\S+)/)![1]!;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  p?.cleanup();
});

async function signedInPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  await page.goto(`${base}/admin`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/admin`);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

describe('the Publishing web app', { timeout: 120_000 }, () => {
  it('signs in, shows the key, saves a webhook, tests it, explains a 401, logs and redelivers', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const anon = await context.newPage();
    await anon.goto(`${base}/admin/sites/one/publishing`);
    expect(new URL(anon.url()).pathname).toBe('/admin/sign-in');
    await shot(anon, '1-sign-in');
    await anon.getByLabel('Admin token').fill('wrong-token-wrong-token');
    await anon.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => anon.getByRole('alert').textContent()).toContain('not right');
    await context.close();

    const page = await signedInPage();
    await expect.poll(() => page.getByRole('heading', { name: 'Field Notes' }).count()).toBe(1);
    await shot(page, '2-sites');
    await page.getByRole('link', { name: /Field Notes/ }).click();
    await page.waitForURL(/\/admin\/sites\/one\/publishing$/);

    // The key: masked until revealed, copied whole.
    const keyBox = page.locator('#api-key');
    expect(await keyBox.textContent()).not.toContain(key.slice(10, 30));
    await page.getByRole('button', { name: 'Reveal key', exact: true }).click();
    expect(await keyBox.textContent()).toBe(key);
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // Save refuses an http URL with the reason, inline.
    await page.getByLabel('Webhook', { exact: false }).first().check();
    await page.getByLabel('Webhook URL').fill('http://example.com/hook');
    await page.getByLabel('Secret', { exact: true }).fill(SECRET);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#url-error').textContent()).toMatch(/must use https/);
    expect(await page.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    await shot(page, '3-save-error');

    // A real save, then Test connection: success with the receiver's reply.
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks/quire`);
    await page.getByLabel('Secret', { exact: true }).fill(SECRET);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Webhook saved');
    expect(await page.content()).not.toContain(SECRET);
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.locator('#test-result');
    await expect
      .poll(() => result.textContent(), { timeout: 15_000 })
      .toMatch(
        /Success: the receiver accepted the delivery with HTTP 200 in \d+ ms\. It says the article is at https:\/\/one\.example\.com\/blog\/first/,
      );
    expect(receiver.requests.at(-1)!.headers['x-quire-event']).toBe('updated');
    expect(JSON.parse(receiver.requests.at(-1)!.rawBody.toString()).article.id).toBe('first');
    await shot(page, '4-test-success');

    // Break the secret: the receiver answers 401, and the page says what that means.
    await page.getByLabel('Secret', { exact: true }).fill('a-different-secret-that-is-long-enough');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Webhook saved');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect
      .poll(() => result.textContent(), { timeout: 15_000 })
      .toMatch(/rejected the secret or signature \(HTTP 401\)/);
    await shot(page, '5-test-401');

    // The log, and Redeliver (after fixing the secret).
    await page.getByLabel('Secret', { exact: true }).fill(SECRET);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.waitForURL(/\/deliveries$/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.first().textContent()).toMatch(/401/);
    expect(await rows.nth(1).textContent()).toMatch(/200[\s\S]*Landed at https:\/\/one\.example\.com\/blog\/first/);
    await shot(page, '6-deliveries');
    const before = receiver.requests.length;
    await rows
      .first()
      .getByRole('button', { name: /Redeliver/ })
      .click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Redelivered .*Success/);
    expect(receiver.requests.length).toBe(before + 1);
    expect(await page.locator('tbody tr').count()).toBe(3);

    // Articles tab: published and draft, with a link to the API JSON.
    await page.getByRole('link', { name: 'Articles' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    expect(await page.locator('tbody').textContent()).toMatch(
      /A draft for later[\s\S]*draft[\s\S]*The first article[\s\S]*published/,
    );
    const json = await (await page.request.get(`${base}/admin/sites/one/articles/first.json`)).json();
    expect(json).toMatchObject({ slug: 'first', author: { name: 'Ann' } });
    await shot(page, '7-articles');

    // Nothing secret in the page source, and the server output never showed the webhook secret.
    for (const url of ['/admin', '/admin/sites/one/publishing', '/admin/sites/one/deliveries']) {
      await page.goto(`${base}${url}`);
      const html = await page.content();
      expect(html).not.toContain(ADMIN_TOKEN);
      expect(html).not.toContain(SECRET);
    }
    expect(server.output()).not.toContain(SECRET);
    await page.context().close();
  });

  it('reads well on a phone', async () => {
    const page = await signedInPage({ width: 390, height: 844 });
    await page.goto(`${base}/admin/sites/one/publishing`);
    // Nothing wider than the screen: no sideways scrolling.
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      return [...document.querySelectorAll('body *')]
        .filter((e: any) => e.getBoundingClientRect().right > width + 0.5)
        .map((e: any) => `${e.tagName}.${e.className}`);
    });
    expect(wide).toEqual([]);
    await shot(page, '8-phone-publishing');
    await page.context().close();
  });

  it('works from the keyboard: every control is reachable and labelled', async () => {
    const page = await signedInPage();
    await page.goto(`${base}/admin/sites/one/publishing`);
    const names: string[] = [];
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press('Tab');
      names.push(
        await page.evaluate(() => {
          const el = document.activeElement;
          if (!el) return '';
          const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
          return `${el.tagName}:${(el.getAttribute('aria-label') ?? label ?? el.closest('label')?.textContent ?? el.textContent ?? '').trim().slice(0, 40)}`;
        }),
      );
    }
    for (const wanted of ['BUTTON:Reveal', 'BUTTON:Copy key', 'INPUT:Webhook URL', 'BUTTON:Save']) {
      expect(
        names.some((n) => n.startsWith(wanted)),
        `${wanted} in ${names.join(' | ')}`,
      ).toBe(true);
    }
    expect(names.every((n) => n.split(':')[1] !== '')).toBe(true);
    await page.context().close();
  });

  it('signs in from the printed link: the token travels in the fragment and leaves the address bar', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/admin/sign-in#token=${ADMIN_TOKEN}`);
    await page.waitForURL(`${base}/admin`);
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    expect(await page.getByRole('heading', { name: 'Sites' }).count()).toBe(1);
    await context.close();
  });

  it('refuses a cross-origin form post (CSRF) and requests without a session', async () => {
    const page = await signedInPage();
    // A page on another origin of the same site (another port of localhost, so the SameSite
    // cookie is sent) posts a form at the app: the CSRF check must refuse it.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form id="f" method="post" action="${base}/admin/sites/one/rotate-key"><input name="confirm" value="yes"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const response = page.waitForResponse((r) => r.url().endsWith('/rotate-key'));
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      expect((await response).status()).toBe(403);
    } finally {
      evil.close();
    }
    // The key did not change.
    const api = await fetch(`${base}/v1/articles`, { headers: { authorization: `Bearer ${key}` } });
    expect(api.status).toBe(200);

    // Same origin but without the CSRF token: refused too.
    const noToken = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', body: new URLSearchParams({ confirm: 'yes' }) })).status,
      `${base}/admin/sites/one/rotate-key`,
    );
    expect(noToken).toBe(403);

    // No session at all.
    const bare = await fetch(`${base}/admin/sites/one/webhook`, {
      method: 'POST',
      body: new URLSearchParams({ url: 'https://x.example.com' }),
      redirect: 'manual',
    });
    expect(bare.status).toBe(401);
    const page2 = await fetch(`${base}/admin/sites/one/deliveries`, { redirect: 'manual' });
    expect(page2.status).toBe(303);
    expect(page2.headers.get('location')).toBe('/admin/sign-in');

    // Security headers on every page.
    const res = await fetch(`${base}/admin/sign-in`);
    expect(res.headers.get('content-security-policy')).toMatch(
      /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    await page.context().close();
  });
});
