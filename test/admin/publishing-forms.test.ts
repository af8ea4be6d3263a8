// The Publishing tab's forms over a real socket, as a browser without script uses them:
// post/redirect/get after every save and test, a generated secret shown once from a server-side
// flash (never in a URL), every problem of a failed save at its own field with the input kept,
// and the app's own 404 page for any address under /admin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { signIn, startAdminServer, type AdminClient, type AdminServer } from '../helpers/admin-server.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
const receiver = useHttpsReceiver();
let server: AdminServer;
let admin: AdminClient;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
  writeSite(p, 'two');
  p.write('two/articles/other.md', article({ title: 'Other', status: 'published', publishedAt: '2026-05-01' }));
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'http://127.0.0.1',
      })
    ).ok,
  ).toBe(true);
  server = await startAdminServer(p, { ca: receiver.caPem });
  admin = await signIn(server.url);
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

const PUBLISHING = '/admin/sites/one/publishing';
const secretOf = async () => await server.publishing.store.webhooks.secretOf('one');

describe('saving a webhook', () => {
  it('redirects after a save and shows a generated secret once, from the server, never in a URL', async () => {
    const saved = await admin.post('/admin/sites/one/webhook', {
      method: 'webhook',
      url: `${receiver.url}/hook`,
      generate: 'yes',
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(PUBLISHING);
    const stored = (await secretOf())!;
    expect(stored).toMatch(/^whsec_/);

    const first = await (await admin.get(PUBLISHING)).text();
    expect(first).toContain(stored);
    expect(first).toContain('it is not shown again');
    // A reload is a GET: the secret is gone from the page and the stored one stays the same.
    const again = await admin.get(PUBLISHING);
    expect(again.status).toBe(200);
    expect(await again.text()).not.toContain(stored);
    expect(await secretOf()).toBe(stored);
  });

  it("shows a generated secret only on its own site's page, even if another site's page is opened first", async () => {
    await admin.post('/admin/sites/one/webhook', { method: 'webhook', url: `${receiver.url}/hook`, generate: 'yes' });
    const stored = (await secretOf())!;
    expect(await (await admin.get('/admin/sites/two/publishing')).text()).not.toContain(stored);
    expect(await (await admin.get(PUBLISHING)).text()).toContain(stored);
    expect(await (await admin.get(PUBLISHING)).text()).not.toContain(stored);
  });

  it('reports URL and secret problems together, each at its field, and keeps what was typed', async () => {
    const before = await secretOf();
    const typed = 'short-secret';
    const failed = await admin.post('/admin/sites/one/webhook', {
      method: 'webhook',
      url: 'http://example.com/hook',
      secret: typed,
      extraEvents: 'yes',
    });
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toBe(PUBLISHING);
    expect(failed.headers.get('location')).not.toContain(typed);

    const page = await (await admin.get(PUBLISHING)).text();
    const urlField = page.slice(page.indexOf('id="webhook-url"'), page.indexOf('id="webhook-secret"'));
    const secretField = page.slice(page.indexOf('id="webhook-secret"'), page.indexOf('name="generate"'));
    expect(urlField).toMatch(/id="url-error"[^>]*>[^<]*https/);
    expect(secretField).toMatch(/id="secret-error"[^>]*>[^<]*at least 24 characters/);
    expect(page).toMatch(
      /id="webhook-url"[^>]*value="http:\/\/example.com\/hook"|value="http:\/\/example.com\/hook"[^>]*id="webhook-url"/,
    );
    expect(page).toMatch(new RegExp(`name="secret"[^>]*value="${typed}"|value="${typed}"[^>]*name="secret"`));
    expect(page).toMatch(/name="extraEvents" value="yes" checked/);
    expect(await secretOf()).toBe(before);
    // Shown once: the next view is the saved state again.
    const next = await (await admin.get(PUBLISHING)).text();
    expect(next).not.toContain('id="url-error"');
    expect(next).not.toContain(typed);
  });

  it('keeps "generate a secret for me" ticked after a failed save, and generates nothing', async () => {
    const before = await secretOf();
    const failed = await admin.post('/admin/sites/one/webhook', {
      method: 'webhook',
      url: 'ftp://example.com/',
      generate: 'yes',
    });
    expect(failed.status).toBe(303);
    const page = await (await admin.get(PUBLISHING)).text();
    expect(page).toMatch(/name="generate" value="yes" checked/);
    expect(page).not.toContain('Secret generated');
    expect(await secretOf()).toBe(before);
  });

  it('Test connection without script redirects, and shows its result once', async () => {
    await admin.post('/admin/sites/one/webhook', {
      method: 'webhook',
      url: `${receiver.url}/hook`,
      secret: 'a-receiver-secret-long-enough-0001',
    });
    const sent = receiver.requests.length;
    const tested = await admin.post('/admin/sites/one/test', {});
    expect(tested.status).toBe(303);
    expect(tested.headers.get('location')).toBe(`${PUBLISHING}#test-result`);
    expect(receiver.requests.length).toBe(sent + 1);
    expect(await (await admin.get(PUBLISHING)).text()).toMatch(
      /Success: the receiver accepted the delivery with HTTP 200/,
    );
    expect(await (await admin.get(PUBLISHING)).text()).not.toMatch(/Success: the receiver accepted/);
    expect(receiver.requests.length).toBe(sent + 1);
  });
});

describe('addresses under /admin', () => {
  it("answers a form address opened with GET with its page, not the API's JSON", async () => {
    for (const [path, to] of [
      ['/admin/sites/one/webhook', PUBLISHING],
      ['/admin/sites/one/test', PUBLISHING],
      ['/admin/sites/one/rotate-key', PUBLISHING],
      ['/admin/sites/one/deliveries/d_123/redeliver', '/admin/sites/one/deliveries'],
    ] as const) {
      const res = await admin.get(path);
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 303, to]);
    }
  });

  it('sends an address typed with a trailing slash to the same address without it', async () => {
    for (const [path, to] of [
      ['/admin/', '/admin'],
      ['/admin/sites/one/publishing/', '/admin/sites/one/publishing'],
      ['/admin/sites/one/deliveries//?site=x', '/admin/sites/one/deliveries?site=x'],
    ] as const) {
      const res = await admin.get(path);
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 301, to]);
    }
    const home = await admin.get('/admin');
    expect(home.status).toBe(200);
  });

  it("answers unknown addresses with the app's own 404 page", async () => {
    for (const path of [
      '/admin/nowhere',
      '/admin/sites/nosuchsite/publishing',
      '/admin/sites/nosuchsite/webhook',
      '/admin/sites/one/articles/missing.json',
      '/admin/sites/one/publishing/extra',
    ]) {
      const res = await admin.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(await res.text()).toContain('Page not found');
    }
    const posted = await admin.post('/admin/sites/one/nothing-here', {});
    expect(posted.status).toBe(404);
    expect(posted.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses a form without a session or without its CSRF token with a page of the app', async () => {
    const anonymous = await fetch(`${server.url}/admin/sites/one/webhook`, {
      method: 'POST',
      body: new URLSearchParams({ url: 'https://x.example.com/' }),
      redirect: 'manual',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await anonymous.text()).toContain('Sign in first');
    const forged = await fetch(`${server.url}/admin/sites/one/rotate-key`, {
      method: 'POST',
      headers: { cookie: admin.cookie },
      body: new URLSearchParams({ confirm: 'yes', _csrf: 'not-the-token' }),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await forged.text()).toContain('reload the page and try again');
  });

  it('answers a failure inside the app with its own error page, the details only in the log', async () => {
    const logged: string[] = [];
    const failing = await startAdminServer(p, {
      lastBuild: () => {
        throw new Error('the build facts are gone');
      },
      log: (line) => logged.push(line),
    });
    try {
      const res = await (await signIn(failing.url)).get('/admin/sites/one/articles');
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      const html = await res.text();
      expect(html).toContain('The server failed to answer this request');
      expect(html).not.toContain('the build facts are gone');
      expect(logged.join('\n')).toContain('the build facts are gone');
    } finally {
      await failing.close();
    }
  });
});
