// The Deliveries tab's "Send pending now", over a real socket with a real SQLite outbox and a
// real HTTPS receiver: a form post (CSRF), a redirect, the result shown once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { signIn, startAdminServer, type AdminClient, type AdminServer } from '../helpers/admin-server.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
const receiver = useHttpsReceiver();
let server: AdminServer;
let admin: AdminClient;

/** A delivery of `slug` whose first attempt failed; its next attempt is an hour away. */
async function pendingForAnHour(slug: string): Promise<string> {
  const { outbox } = server.publishing.store;
  const now = Date.now();
  const id = await outbox.enqueue(
    { siteId: 'one', slug, event: 'published', body: Buffer.from(`{"slug":"${slug}"}`), origin: 'publish' },
    now,
  );
  const attempt = {
    url: `${receiver.url}/hook`,
    startedAt: now,
    durationMs: 5,
    status: 503,
    error: 'HTTP 503',
    replyUrl: null,
    replyId: null,
  };
  await outbox.recordAttempt(id, attempt, { state: 'pending', nextAttemptAt: now + 3_600_000 }, now);
  return id;
}

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-05-01' }));
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
  await server.publishing.store.webhooks.save(
    'one',
    { url: `${receiver.url}/hook`, secret: 'a-receiver-secret-long-enough-0001' },
    Date.now(),
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

const tab = async () => (await admin.get('/admin/sites/one/deliveries')).text();

describe('Send pending now', () => {
  it('sends what waits, redirects, shows each result once; still failing stays pending', async () => {
    expect(await tab()).not.toContain('Send pending now'); // nothing pending, no button
    receiver.respond(() => ({ status: 500 }));
    const a = await pendingForAnHour('a');
    const b = await pendingForAnHour('b');
    let page = await tab();
    expect(page).toMatch(/id="pending-h">\s*Pending <span class="badge warn">2<\/span>/);
    expect(page).toContain('action="/admin/sites/one/deliveries/retry"');

    let res = await admin.post('/admin/sites/one/deliveries/retry', {});
    expect([res.status, res.headers.get('location')]).toEqual([303, '/admin/sites/one/deliveries#retry-result']);
    expect(receiver.requests.map((r) => r.headers['x-quire-delivery']).sort()).toEqual([a, b].sort());
    page = await tab();
    expect(page).toContain('Sent 2 pending: 0 delivered.');
    expect(page.match(/failed again; retried later/g)).toHaveLength(2);
    expect((await server.publishing.store.outbox.get(a))!.state).toBe('pending');

    receiver.respond(() => ({ status: 200 }));
    res = await admin.post('/admin/sites/one/deliveries/retry', {});
    expect(res.status).toBe(303);
    page = await tab();
    expect(page).toContain('Sent 2 pending: 2 delivered.');
    expect(page.match(/class="badge ok">delivered</g)).toHaveLength(2);
    expect(page).not.toContain('Send pending now');
    expect((await server.publishing.store.outbox.get(b))!.state).toBe('delivered');
    // Shown once: a reload shows the log only, and sends nothing.
    page = await tab();
    expect(page).not.toContain('id="retry-result"');
    expect(page).not.toContain('Sent 2 pending');
    expect(receiver.requests).toHaveLength(4);
  });

  it('says when nothing was pending; a GET of the form address goes to the tab; no CSRF token, nothing sent', async () => {
    receiver.requests.length = 0;
    let res = await admin.post('/admin/sites/one/deliveries/retry', {});
    expect(res.status).toBe(303);
    expect(await tab()).toContain('Nothing was pending.');
    res = await admin.get('/admin/sites/one/deliveries/retry');
    expect([res.status, res.headers.get('location')]).toEqual([303, '/admin/sites/one/deliveries']);
    await pendingForAnHour('a');
    res = await fetch(`${server.url}/admin/sites/one/deliveries/retry`, {
      method: 'POST',
      headers: { cookie: admin.cookie },
      body: new URLSearchParams({}),
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    expect(receiver.requests).toHaveLength(0);
  });
});
