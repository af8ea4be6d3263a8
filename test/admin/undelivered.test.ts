// The Sites page's failure badge and the Deliveries tab's "Not delivered" list, over a real
// socket with a real SQLite outbox: only articles whose newest delivery failed with no success
// since are counted (Test connection is not), the badge says so and links to them, and a
// successful Redeliver takes an article off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { signIn, startAdminServer, type AdminClient, type AdminServer } from '../helpers/admin-server.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
const receiver = useHttpsReceiver();
let server: AdminServer;
let admin: AdminClient;
let clock = Date.UTC(2026, 4, 1);

/** A delivery of `slug` that ends in `state` after one attempt. */
async function delivery(
  slug: string,
  origin: 'publish' | 'test' | 'redeliver',
  state: 'delivered' | 'failed',
): Promise<string> {
  const { outbox } = server.publishing.store;
  clock += 1000;
  const id = await outbox.enqueue({ siteId: 'one', slug, event: 'updated', body: Buffer.from('{}'), origin }, clock);
  const status = state === 'delivered' ? 200 : 503;
  await outbox.recordAttempt(
    id,
    {
      url: `${receiver.url}/hook`,
      startedAt: clock,
      durationMs: 5,
      status,
      error: state === 'failed' ? 'HTTP 503' : null,
      replyUrl: null,
      replyId: null,
    },
    { state },
    clock,
  );
  return id;
}

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  for (const slug of ['a', 'b', 'c'])
    p.write(
      `one/articles/${slug}.md`,
      article({ title: slug.toUpperCase(), status: 'published', publishedAt: '2026-05-01' }),
    );
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
    clock,
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

describe('failed deliveries in the Publishing app', () => {
  it('count articles whose newest delivery failed with no success since, never Test connection', async () => {
    await delivery('c', 'test', 'failed');
    await delivery('c', 'test', 'failed');
    const a = await delivery('a', 'publish', 'failed');
    await delivery('b', 'publish', 'failed');
    await delivery('b', 'redeliver', 'delivered');
    await delivery('c', 'publish', 'failed');
    const c = await delivery('c', 'redeliver', 'failed');

    const sites = await (await admin.get('/admin')).text();
    expect(sites).toMatch(
      /<a class="badge err" href="\/admin\/sites\/one\/deliveries#not-delivered">2 articles not delivered<\/a>/,
    );
    expect(sites).toContain('none has succeeded since');
    expect(sites).not.toMatch(/\d+ failed/);

    const page = await (await admin.get('/admin/sites/one/deliveries')).text();
    const list = page.slice(page.indexOf('id="not-delivered"'), page.indexOf('id="log-h"'));
    expect(list).toContain(`/deliveries/${a}/redeliver`);
    expect(list).toContain(`/deliveries/${c}/redeliver`);
    expect(list.match(/\/redeliver"/g)).toHaveLength(2);
  });

  it('clear once a Redeliver succeeds', async () => {
    receiver.respond(() => ({ status: 200 }));
    const page = await (await admin.get('/admin/sites/one/deliveries')).text();
    const list = page.slice(page.indexOf('id="not-delivered"'), page.indexOf('id="log-h"'));
    const [first] = [...list.matchAll(/action="([^"]+\/redeliver)"/g)].map((m) => m[1]!);
    const res = await admin.post(first!, {});
    expect(res.status).toBe(303);
    expect(await (await admin.get('/admin')).text()).toContain('1 article not delivered<');
    const second = [
      ...(await (await admin.get('/admin/sites/one/deliveries')).text()).matchAll(
        /id="not-delivered"[\s\S]*?action="([^"]+\/redeliver)"/g,
      ),
    ].map((m) => m[1]!);
    await admin.post(second[0]!, {});
    const sites = await (await admin.get('/admin')).text();
    expect(sites).not.toContain('not delivered');
    expect(await (await admin.get('/admin/sites/one/deliveries')).text()).not.toContain('id="not-delivered"');
  });
});
