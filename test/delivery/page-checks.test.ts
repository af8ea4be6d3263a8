// The check of each acknowledged delivery's live page, with real parts: the state store (SQLite,
// or PostgreSQL on the test:postgres run), the verifier loop, the SSRF-safe client, and the
// reference receiving site on loopback HTTPS with its fault switches, or a site that never
// answers. A correct page is `live`; a rewritten one a `render_problem` with its code and fix; a
// site that times out `unverified`; the checks waiting for a site that never answers stay under
// the cap; a fleet of verifiers makes each check once, one request at a time to a capped host.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { createHostCap } from '../../src/delivery/host-cap.ts';
import { redeliver } from '../../src/delivery/redeliver.ts';
import { startPageVerifier, type PageVerifier, type PageVerifierOptions } from '../../src/delivery/page-verifier.ts';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.ts';
import { VERIFIED_SITE } from '../../src/net/target-policy.ts';
import {
  newLeaseOwner,
  type PageCheckRequest,
  type StateStore,
  type Verification,
} from '../../src/store/state-store.ts';
import { startHttpsApp, startHttpsReceiver, type HttpsApp, type HttpsReceiver } from '../helpers/https-receiver.ts';
import { createTempProject, type TempProject } from '../helpers/temp-content.ts';
import { openTestStore } from '../helpers/test-store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const SECRET = 'page-check-store-secret-0123456789';
const UPDATED_AT = '2026-05-01T10:00:00Z';
const AUTHOR = { name: 'Ann Example', url: 'https://ann.example.org/' };

let siteServer: HttpsApp;
let site: ReturnType<typeof createExampleSite>;
let silent: HttpsReceiver;
let client: SafeClient;
/** Requests the example site received, by path, and the most it had in flight at once. */
const seen = { paths: [] as string[], inFlight: 0, mostInFlight: 0 };

let p: TempProject;
let store: StateStore;
const verifiers: PageVerifier[] = [];
const logged: string[] = [];

beforeAll(async () => {
  siteServer = await startHttpsApp();
  site = createExampleSite({
    secret: 'unused-webhook-secret-0000000000',
    apiBase: 'https://api.invalid/v1',
    apiKey: 'unused',
    publicUrl: siteServer.url,
  });
  siteServer.setHandler(async (req) => {
    seen.paths.push(new URL(req.url).pathname);
    seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight);
    try {
      await new Promise((r) => setTimeout(r, 20)); // long enough for overlapping requests to show
      return await site.app.fetch(req);
    } finally {
      seen.inFlight--;
    }
  });
  silent = await startHttpsReceiver({ handler: () => ({ hang: true }) });
  client = createSafeClient({ allowPrivate: true, ca: siteServer.caPem, policy: VERIFIED_SITE, log: () => {} });
});

afterAll(async () => {
  client?.close();
  await siteServer?.close();
  await silent?.close();
});

beforeEach();
function beforeEach() {
  afterEach(async () => {
    await Promise.all(verifiers.splice(0).map((v) => v.stop()));
    await store?.close();
    p?.cleanup();
    site.articles.clear();
    site.faults.clear();
    seen.paths.length = 0;
    seen.mostInFlight = 0;
    logged.length = 0;
  });
}

function openStore(): StateStore {
  p = createTempProject();
  store = openTestStore(p.stateDir, SECRET);
  return store;
}

function verify(on: StateStore, opts: PageVerifierOptions = {}, hostCap = false): PageVerifier {
  const v = startPageVerifier(
    {
      store: on,
      client,
      now: Date.now,
      log: (line) => logged.push(line),
      hostCap: hostCap
        ? createHostCap(
            { store: on, now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
            { perHost: 1, owner: newLeaseOwner('test-slots'), leaseMs: 10_000 },
          )
        : null,
    },
    { pollMs: 50, timeoutMs: 2_000, budgetMs: 5_000, ...opts },
  );
  verifiers.push(v);
  return v;
}

/**
 * The article on the example site as its receiver stores it, and a `published` delivery of it
 * queued with its page check and acknowledged with the site's `{url}` reply.
 */
async function delivered(
  on: StateStore,
  slug: string,
  opts: { siteId?: string; base?: string; delayMs?: number; pageCheck?: PageCheckRequest } = {},
): Promise<string> {
  const base = opts.base ?? siteServer.url;
  const html = `<p>The article ${slug}, with "quotes".</p>\n<p><img src="https://images.example.com/${slug}.png" alt="A picture"></p>`;
  site.articles.set(slug, {
    id: slug,
    slug,
    title: slug,
    metaDescription: '',
    html,
    updatedAt: UPDATED_AT,
    author: AUTHOR,
    sentAt: 0,
  });
  const body = Buffer.from(JSON.stringify({ event: 'published', article: { id: slug, slug, title: slug, html } }));
  const pageCheck = opts.pageCheck ?? {
    siteUrl: base,
    articleUrl: `${base}/blog/${slug}`,
    updatedAt: UPDATED_AT,
    author: AUTHOR,
    delayMs: opts.delayMs ?? 0,
  };
  const siteId = opts.siteId ?? 'notes';
  const id = await on.outbox.enqueue(
    { siteId, slug, event: 'published', body, origin: 'publish', pageCheck },
    Date.now(),
  );
  const attempt = {
    url: 'https://receiver.invalid/hook',
    startedAt: Date.now(),
    durationMs: 3,
    status: 200,
    error: null,
    replyUrl: `${base}/blog/${slug}`,
    replyId: slug,
  };
  await on.outbox.recordAttempt(id, attempt, { state: 'delivered' }, Date.now());
  return id;
}

async function verificationOf(on: StateStore, id: string): Promise<Verification | null> {
  const log = await on.outbox.attemptLog({ limit: 10_000 });
  return log.find((a) => a.deliveryId === id)?.verification ?? null;
}

/** The verification once the first check is made. */
async function checked(on: StateStore, id: string): Promise<Verification> {
  let v: Verification | null = null;
  await waitFor(
    async () => {
      v = await verificationOf(on, id);
      return v !== null && v.state !== 'pending';
    },
    () => `still ${JSON.stringify(v)}; log: ${logged.join('\n')}`,
    20_000,
  );
  return v!;
}

describe('the live page of each acknowledged delivery', { timeout: 60_000 }, () => {
  it('is pending until checked, then live when the page shows the article as published', async () => {
    openStore();
    const id = await delivered(store, 'right');
    expect((await verificationOf(store, id))?.state).toBe('pending');
    verify(store);
    const v = await checked(store, id);
    expect(v).toMatchObject({
      state: 'live',
      code: null,
      fix: null,
      url: `${siteServer.url}/blog/right`,
      nextCheckAt: null,
    });
    expect(v.checks!.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
      'byline:pass',
      'canonical:pass',
      'html:pass',
      'sitemap:pass',
    ]);
    expect(v.checkedAt).toBeGreaterThan(0);
    expect(seen.paths).toEqual(expect.arrayContaining(['/robots.txt', '/sitemap.xml', '/blog/right']));
    expect(await store.pageChecks.counts('notes')).toMatchObject({ live: 1, pending: 0 });
  });

  it('a page that rewrites the html is a render problem with HTML_MODIFIED and its fix, checked again later', async () => {
    openStore();
    site.faults.add('lazy-images');
    const id = await delivered(store, 'rewritten');
    verify(store);
    const v = await checked(store, id);
    expect(v.state).toBe('render_problem');
    expect(v.code).toBe('HTML_MODIFIED');
    expect(v.fix).toMatch(/Inject `html` exactly as received/);
    expect(v.message).toMatch(/loading/);
    expect(v.nextCheckAt).toBeGreaterThan(v.checkedAt!);
    expect(v.checks!.find((c) => c.id === 'html')).toMatchObject({ status: 'fail', code: 'HTML_MODIFIED' });
    expect(logged.join('\n')).toMatch(/Page check of notes\/rewritten .*render problem HTML_MODIFIED/);
    const problems = await store.pageChecks.problems('notes');
    expect(problems).toEqual([
      expect.objectContaining({
        deliveryId: id,
        slug: 'rewritten',
        verification: expect.objectContaining({ code: 'HTML_MODIFIED' }),
      }),
    ]);
    expect(await store.pageChecks.counts()).toMatchObject({ render_problem: 1 });
  });

  it('a site that does not answer in time is unverified, not a render problem', async () => {
    openStore();
    const id = await delivered(store, 'slow', { base: silent.url });
    verify(store, { timeoutMs: 200, budgetMs: 1_500 });
    const v = await checked(store, id);
    expect(v.state).toBe('unverified');
    expect(v.code).toBe('FETCH_TIMEOUT');
    expect(v.fix).toBeTruthy();
    expect(v.nextCheckAt).not.toBeNull();
    expect(await store.pageChecks.problems('notes')).toHaveLength(1);
    // Nothing of the delivery changed: a page check never sends it again.
    const [delivery] = await store.outbox.list({ siteId: 'notes' });
    expect(delivery).toMatchObject({ id, state: 'delivered', attempts: 1 });
  });

  it('the checks waiting for a site that never answers stay under the cap: the oldest are dropped, unverified, with a note', async () => {
    openStore();
    const ids: string[] = [];
    // A millisecond apart: delivery ids order deliveries by time (within one, at random).
    const later = () => new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < 12; i++) {
      ids.push(await delivered(store, `never-${i}`, { base: silent.url }));
      await later();
    }
    verify(store, { timeoutMs: 2_000, budgetMs: 4_000, maxWaitingPerSite: 3 });
    await waitFor(
      async () => (await store.pageChecks.counts('notes')).unverified === 9,
      () => logged.join('\n'),
      10_000,
    );
    // One check runs (a site is checked one page at a time, here for as long as its budget), and
    // three wait, that one among them: the cap spares a check in flight.
    const states = await Promise.all(ids.map((id) => verificationOf(store, id)));
    expect(states.filter((v) => v?.state === 'pending')).toHaveLength(3);
    expect(states.slice(0, 9).map((v) => v?.code)).toEqual(Array(9).fill('PAGE_CHECKS_DROPPED'));
    expect(states[0]!.message).toMatch(/more than 3 page checks waited for this site/);
    expect(logged.join('\n')).toMatch(/Page checks of notes: 9 dropped, unverified \(more than 3 waited/);
    // More deliveries while it hangs: the waiting stay at the cap.
    for (let i = 12; i < 20; i++) {
      ids.push(await delivered(store, `never-${i}`, { base: silent.url }));
      await later();
    }
    const codes = async (from: number, to: number) =>
      (await Promise.all(ids.slice(from, to).map((id) => verificationOf(store, id)))).map((v) => v?.code);
    await waitFor(
      async () => (await codes(12, 17)).every((code) => code === 'PAGE_CHECKS_DROPPED'),
      () => logged.join('\n'),
      15_000,
    );
    expect((await Promise.all(ids.slice(17).map((id) => verificationOf(store, id)))).map((v) => v?.state)).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    // The three newest wait, and at most one more is being checked.
    expect((await store.pageChecks.counts('notes')).pending).toBeLessThanOrEqual(4);
  });

  it('stopping gives back a check it cut short: no verdict is made of what it could not finish', async () => {
    openStore();
    const id = await delivered(store, 'cut-short', { base: silent.url });
    const verifier = verify(store, { timeoutMs: 1_000, budgetMs: 10_000 });
    await waitFor(
      () => silent.requests.length > 0,
      () => 'no request',
      5_000,
    );
    const stopping = Date.now();
    await verifier.stop();
    expect(Date.now() - stopping).toBeLessThan(3_000); // the request in flight, not the budget
    expect(await verificationOf(store, id)).toMatchObject({ state: 'pending', checkedAt: null });
  });

  it('a newer acknowledged delivery of the article ends the check still waiting for an older one', async () => {
    openStore();
    const older = await delivered(store, 'edited', { delayMs: 60_000 });
    expect((await verificationOf(store, older))?.state).toBe('pending');
    const newer = await delivered(store, 'edited');
    expect(await verificationOf(store, older)).toBeNull();
    verify(store);
    expect((await checked(store, newer)).state).toBe('live');
    expect(seen.paths.filter((path) => path === '/blog/edited')).toHaveLength(1);
  });

  it('a site that turned the checks off shows `off`, and its pages are never fetched', async () => {
    openStore();
    const id = await delivered(store, 'quiet', { pageCheck: 'off' });
    verify(store);
    await new Promise((r) => setTimeout(r, 300));
    expect(await verificationOf(store, id)).toMatchObject({ state: 'off' });
    expect(seen.paths).toEqual([]);
    expect(await store.pageChecks.counts()).toMatchObject({ off: 1, pending: 0 });
  });

  it('a redelivery is checked like the delivery it repeats, and ends the check of the original', async () => {
    openStore();
    const receiver = await startHttpsReceiver({
      handler: () => ({ json: { url: `${siteServer.url}/blog/again`, id: 'again' } }),
    });
    const webhookClient = createSafeClient({ allowPrivate: true, ca: receiver.caPem, log: () => {} });
    try {
      await store.webhooks.save(
        'notes',
        { url: `${receiver.url}/hook`, secret: 'a-receiver-secret-long-enough-0001' },
        Date.now(),
      );
      const id = await delivered(store, 'again');
      const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
      const sent = await redeliver({ store, client: webhookClient, now: Date.now, sleep }, id);
      if (!sent.sent) throw new Error(sent.message);
      verify(store);
      expect(await checked(store, sent.deliveryId)).toMatchObject({
        state: 'live',
        url: `${siteServer.url}/blog/again`,
      });
      expect(await verificationOf(store, id)).toBeNull();
    } finally {
      webhookClient.close();
      await receiver.close();
    }
  });

  it('a fleet of verifiers makes each check once, one request at a time to a host capped at one', async () => {
    const first = openStore();
    const second = openTestStore(p.stateDir, SECRET);
    try {
      const ids: string[] = [];
      for (let s = 0; s < 4; s++)
        for (let a = 0; a < 3; a++) ids.push(await delivered(first, `s${s}-a${a}`, { siteId: `site-${s}` }));
      verify(first, { concurrency: 3 }, true);
      verify(second, { concurrency: 3 }, true);
      for (const id of ids) expect((await checked(first, id)).state).toBe('live');
      for (let s = 0; s < 4; s++)
        for (let a = 0; a < 3; a++)
          expect(
            seen.paths.filter((path) => path === `/blog/s${s}-a${a}`),
            `s${s}-a${a}`,
          ).toHaveLength(1);
      expect(seen.mostInFlight).toBe(1);
    } finally {
      await Promise.all(verifiers.splice(0).map((v) => v.stop()));
      await second.close();
    }
  });
});
