// The Publishing app in real Chromium against an in-process server on loopback: what only a
// browser does — reloads after a save, a pasted sign-in link in an open tab, layout on a phone.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import type { ContentFacts } from '../../src/content/load-content.ts';
import { ADMIN_TOKEN, startAdminServer, type AdminServer } from '../helpers/admin-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

// Browser globals inside page.evaluate callbacks (the project's types are Node's, not the DOM's).
declare const document: any, getComputedStyle: any;

// Screenshots to look at go here (not committed).
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/admin');

let p: TempProject;
let server: AdminServer;
let browser: Browser;
let lastBuild: ContentFacts;

/** Builds as `start` and `dev` do, keeping what the Articles tab shows. */
async function build(): Promise<boolean> {
  const result = await buildExport({
    contentDir: p.contentDir,
    distDir: p.distDir,
    stateDir: p.stateDir,
    publicUrl: 'http://127.0.0.1',
  });
  lastBuild = { sites: result.loaded, issues: result.issues };
  return result.ok;
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write(
    'one/articles/first.md',
    article({ title: 'The first article', status: 'published', publishedAt: '2026-05-01' }),
  );
  expect(await build()).toBe(true);
  server = await startAdminServer(p, { lastBuild: () => lastBuild });
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
    expect(await server.publishing.store.webhooks.secretOf('one')).toBe(shown);

    await page.reload();
    expect(await page.locator('#generated-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(shown);
    expect(await server.publishing.store.webhooks.secretOf('one')).toBe(shown);
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
  it('fits a 390 px phone on every tab: no sideways scroll of the page, nor of a table (rows stack)', async () => {
    // Long values where they do the most harm: a long webhook URL, deliveries with long slugs and
    // errors, an article with a long problem and hint.
    const { store } = server.publishing;
    const longUrl = `https://receiver-with-a-rather-long-host-name.example.com/api/webhooks/quire/${'x'.repeat(60)}`;
    await store.webhooks.save(
      'one',
      { url: longUrl, secret: 'a-receiver-secret-long-enough-0001', extraEvents: true },
      Date.now(),
    );
    const slug = 'a-very-long-article-slug-that-goes-on-and-on-for-quite-a-while';
    for (const status of [503, 200]) {
      const id = await store.outbox.enqueue(
        { siteId: 'one', slug, event: 'updated', body: Buffer.from('{}'), origin: 'publish' },
        Date.now(),
      );
      await store.outbox.recordAttempt(
        id,
        {
          url: longUrl,
          startedAt: Date.now(),
          durationMs: 12,
          status,
          error: status === 200 ? null : `HTTP 503 ${'upstream-unavailable '.repeat(8)}`,
          replyUrl: status === 200 ? `https://one.example.com/blog/${slug}` : null,
          replyId: null,
        },
        { state: status === 200 ? 'delivered' : 'failed' },
        Date.now(),
      );
    }
    p.write(
      `one/articles/${slug}.md`,
      article({
        title: 'An article whose author is missing from the authors folder',
        status: 'published',
        author: 'someone-not-there',
      }),
    );
    expect(await build()).toBe(false);
    const page = await signedIn({ width: 390, height: 844 });
    try {
      for (const tab of ['articles', 'publishing', 'deliveries', '']) {
        await page.goto(tab ? `${server.url}/admin/sites/one/${tab}` : `${server.url}/admin`);
        if (tab === 'publishing') await page.locator('#method-webhook').check();
        const widths = await page.evaluate(() => ({
          page: document.documentElement.scrollWidth,
          tables: [...document.querySelectorAll('.table-wrap')].map((w: any) => w.scrollWidth - w.clientWidth),
        }));
        expect([tab, widths.page]).toEqual([tab, 390]);
        // Every column in sight: nothing hidden to the right of a table's box.
        expect([tab, ...widths.tables.filter((hidden: number) => hidden > 0)]).toEqual([tab]);
        await page.screenshot({ path: path.join(ARTIFACTS, `phone-${tab || 'sites'}.png`), fullPage: true });
      }
      // The extra-events label reads as a sentence, not one word per line.
      await page.goto(`${server.url}/admin/sites/one/publishing`);
      const label = page.locator('label.check', { hasText: 'Also send' });
      const box = (await label.boundingBox())!;
      const lineHeight = await label.evaluate((el: any) => parseFloat(getComputedStyle(el).lineHeight) || 20);
      expect(box.height / lineHeight).toBeLessThanOrEqual(4);
    } finally {
      p.remove(`one/articles/${slug}.md`);
      await build();
      await page.context().close();
    }
  });

  it('Send pending now: one click sends, the result shows once, a reload sends nothing again', async () => {
    const { store } = server.publishing;
    // Nothing listens on port 9: each attempt fails at once and stays pending.
    await store.webhooks.save(
      'one',
      { url: 'https://127.0.0.1:9/hook', secret: 'a-receiver-secret-long-enough-0001' },
      Date.now(),
    );
    const now = Date.now();
    const id = await store.outbox.enqueue(
      { siteId: 'one', slug: 'first', event: 'updated', body: Buffer.from('{}'), origin: 'publish' },
      now,
    );
    await store.outbox.recordAttempt(
      id,
      {
        url: 'https://127.0.0.1:9/hook',
        startedAt: now,
        durationMs: 3,
        status: null,
        error: 'connection refused',
        replyUrl: null,
        replyId: null,
      },
      { state: 'pending', nextAttemptAt: now + 3_600_000 },
      now,
    );
    const page = await signedIn();
    try {
      await page.goto(`${server.url}/admin/sites/one/deliveries`);
      await page.getByRole('button', { name: 'Send pending now' }).click();
      await page.waitForURL(`${server.url}/admin/sites/one/deliveries#retry-result`);
      const result = page.locator('#retry-result');
      expect(await result.getByText('failed again; retried later').isVisible()).toBe(true);
      expect(await page.locator('.notice').innerText()).toContain('Sent 1 pending: 0 delivered.');
      const attempts = (await store.outbox.get(id))!.attempts;
      expect(attempts).toBe(2);
      await page.reload();
      expect(await page.locator('#retry-result').count()).toBe(0);
      expect((await store.outbox.get(id))!.attempts).toBe(attempts); // the reload sent nothing
      expect(await page.getByRole('button', { name: 'Send pending now' }).isVisible()).toBe(true); // still pending
    } finally {
      await store.outbox.recordAttempt(
        id,
        { url: '', startedAt: now, durationMs: 0, status: 200, error: null, replyUrl: null, replyId: null },
        { state: 'delivered' },
        now,
      );
      await page.context().close();
    }
  });
});
