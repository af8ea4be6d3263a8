// The conformance check against real receivers on loopback HTTPS: the reference site passes every
// rule, and each of its deliberate mistakes fails exactly the rule about it (checking only the
// Bearer token is a warning, not a failure); receivers that refuse everything, accept everything
// without a site to look at, or do not answer are reported as such, rule by rule.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite, type SiteFault } from '../../examples/site/site.ts';
import { USER_AGENT } from '../../src/delivery/signing.ts';
import type { RuleResult } from '../../src/integration/conformance/report.ts';
import { runConformance, type ConformanceTarget } from '../../src/integration/conformance/run-conformance.ts';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.ts';
import { VERIFIED_SITE } from '../../src/net/target-policy.ts';
import { startHttpsApp, startHttpsReceiver, type HttpsApp, type HttpsReceiver } from '../helpers/https-receiver.ts';

const SECRET = 'conformance-webhook-secret-0123456789';
let app: HttpsApp;
let receiver: HttpsReceiver;
let webhookClient: SafeClient;
let pageClient: SafeClient;

beforeAll(async () => {
  app = await startHttpsApp();
  receiver = await startHttpsReceiver();
  webhookClient = createSafeClient({ allowPrivate: true, ca: app.caPem, userAgent: USER_AGENT, log: () => {} });
  pageClient = createSafeClient({ allowPrivate: true, ca: app.caPem, policy: VERIFIED_SITE, log: () => {} });
});
afterAll(async () => {
  webhookClient?.close();
  pageClient?.close();
  await app?.close();
  await receiver?.close();
});
afterEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({}));
});

/** The reference site with these mistakes, served on the test app; it never needs the Content API here. */
function referenceSite(faults: SiteFault[] = []) {
  const site = createExampleSite({
    secret: SECRET,
    apiBase: 'https://api.invalid/v1',
    apiKey: 'pk_one.unused',
    publicUrl: app.url,
    faults: new Set(faults),
    fetchImpl: () => Promise.reject(new Error('a test article was looked up in the Content API')),
  });
  app.setHandler(site.app.fetch);
  return site;
}

const run = (target: Partial<ConformanceTarget> = {}) =>
  runConformance(
    {
      webhookClient,
      pageClient,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      timeoutMs: 5_000,
      settleMs: 300,
    },
    {
      siteId: 'one',
      url: `${app.url}/webhooks/quire`,
      secret: SECRET,
      extraEvents: false,
      layout: { baseUrl: app.url, articlePath: '/blog/{slug}' },
      ...target,
    },
  );

const ids = (rules: RuleResult[], which: (r: RuleResult) => boolean) => rules.filter(which).map((r) => r.id);
const failed = (rules: RuleResult[]) => ids(rules, (r) => !r.ok);
const warned = (rules: RuleResult[]) => ids(rules, (r) => r.warning === true);

describe('quire conformance against the reference site', { timeout: 60_000 }, () => {
  it('passes every rule: verifies signatures over the raw body, upserts, keeps the newest, refuses forgeries', async () => {
    const site = referenceSite();
    const report = await run();
    expect(report.rules.map((r) => [r.id, r.ok, r.warning ?? false])).toEqual([
      ['published', true, false],
      ['redelivery', true, false],
      ['updated', true, false],
      ['out-of-date', true, false],
      ['forged', true, false],
      ['verification', true, false],
      ['raw-body', true, false],
      ['live-page', true, false],
    ]);
    expect(report).toMatchObject({ ok: true, verifies: 'signature', summary: '8 passed, 0 warnings, 0 failed' });
    expect(report.testSlug).toMatch(/^quire-conformance-[0-9a-f]{10}$/);
    // One entry, with the newest version, clearly a test.
    const stored = [...site.articles.values()];
    expect(stored.map((a) => a.slug)).toEqual([report.testSlug]);
    expect(stored[0]!.title).toMatch(/test article, safe to delete/);
    expect(stored[0]!.html).toContain(`${report.testSlug}-version-3`);
    expect(report.rules.find((r) => r.id === 'live-page')!.detail).toContain(`${app.url}/blog/${report.testSlug}`);
    expect(report.cleanup).toMatch(/^left on the receiver: quire-conformance-.*--extra-events/);
    expect(JSON.stringify(report)).not.toContain(SECRET);
  });

  it('deletes the test article at the end when the webhook opted in to extra events', async () => {
    const site = referenceSite();
    const report = await run({ extraEvents: true });
    expect(report.ok).toBe(true);
    expect(report.cleanup).toMatch(/^removed: the receiver accepted a `deleted` event/);
    expect(site.articles.size).toBe(0);
  });

  const cases: [SiteFault, string[], string[], string][] = [
    ['accepts-forged', ['forged'], ['verification'], 'FORGED_ACCEPTED'],
    ['duplicates-on-redelivery', ['redelivery'], [], 'DUPLICATED'],
    ['re-serializes-body', ['raw-body'], [], 'RAW_BODY_REFUSED'],
    ['accepts-out-of-date', ['out-of-date'], [], 'OUT_OF_DATE_APPLIED'],
    ['reply-url-not-canonical', ['live-page'], [], 'SITEMAP_URL_MISSING'],
    ['bearer-only', [], ['verification'], 'SIGNATURE_NOT_CHECKED'],
  ];

  it.each(cases)(
    'a site that %s fails exactly %j (warns on %j), with %s and a fix',
    async (fault, fails, warns, code) => {
      referenceSite([fault]);
      const report = await run();
      expect(failed(report.rules)).toEqual(fails);
      expect(warned(report.rules)).toEqual(warns);
      expect(report.ok).toBe(fails.length === 0);
      const rule = report.rules.find((r) => r.id === (fails[0] ?? warns[0]))!;
      expect(rule.code).toBe(code);
      expect(rule.fix).toBeTruthy();
    },
  );

  it("a reply URL whose page fails verify_integration's checks names each failing check", async () => {
    referenceSite(['reply-url-not-canonical']);
    const report = await run();
    const rule = report.rules.find((r) => r.id === 'live-page')!;
    expect(rule.detail).toContain(`${app.url}/print/blog/${report.testSlug}`);
    expect(rule.detail).toMatch(
      /sitemap fail \(SITEMAP_URL_MISSING\), canonical fail \(CANONICAL_MISMATCH\), html pass/,
    );
    // The content rules read the page it replied, which shows the article.
    expect(report.rules.find((r) => r.id === 'updated')!.ok).toBe(true);
  });

  it('tells what a bearer-only receiver verifies, and does not hold it to the raw-body rule', async () => {
    referenceSite(['bearer-only']);
    const report = await run();
    expect(report.verifies).toBe('bearer');
    expect(report.rules.find((r) => r.id === 'raw-body')!.detail).toMatch(/^not applicable/);
    expect(report.rules.find((r) => r.id === 'verification')!.detail).toMatch(/checks only the Bearer token/);
  });

  it('a re-serializing receiver is caught both ways: the unusual spelling refused, the re-spaced body accepted', async () => {
    referenceSite(['re-serializes-body']);
    const rule = (await run()).rules.find((r) => r.id === 'raw-body')!;
    expect(rule.detail).toMatch(
      /keys reordered and spaced out was refused \(HTTP 401\), and a body spaced out under the original signature was accepted \(HTTP 200\)/,
    );
  });
});

describe('quire conformance against other receivers', { timeout: 60_000 }, () => {
  const target = () => ({ url: `${receiver.url}/hook`, layout: { baseUrl: receiver.url, articlePath: null } });

  it('one that refuses everything (another secret) fails every delivery with the explanation, and what it verifies is not told', async () => {
    receiver.respond(() => ({ status: 401, json: { error: 'bad signature' } }));
    const report = await run(target());
    expect(failed(report.rules)).toEqual(['published', 'redelivery', 'updated', 'out-of-date']);
    expect(report.rules[0]).toMatchObject({ code: 'REJECTED_SECRET' });
    expect(report.rules.find((r) => r.id === 'forged')!.ok).toBe(true);
    expect(report.rules.find((r) => r.id === 'verification')).toMatchObject({ warning: true, code: 'NOT_CHECKED' });
    expect(report.verifies).toBeNull();
    expect(report.rules.find((r) => r.id === 'raw-body')).toMatchObject({ warning: true, code: 'NOT_CHECKED' });
  });

  it('one that accepts everything and shows nothing: the forged request fails, what it stored cannot be seen', async () => {
    receiver.respond(() => ({ status: 200 }));
    const report = await run(target());
    expect(failed(report.rules)).toEqual(['forged']);
    expect(report.verifies).toBe('neither');
    const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(byId.redelivery).toMatchObject({ warning: true, code: 'NOT_OBSERVABLE' });
    expect(byId.updated).toMatchObject({ warning: true, code: 'NOT_OBSERVABLE' });
    expect(byId['live-page']!.detail).toMatch(/replies no \{url, id\}/);
    // Every request carried what Quire sends; only the forged one's credentials were all wrong.
    const posts = receiver.requests.filter((r) => r.method === 'POST');
    const bodies = posts.map((r) => JSON.parse(r.rawBody.toString('utf8')) as { article: { slug: string } });
    expect(new Set(bodies.map((b) => b.article.slug))).toEqual(new Set([report.testSlug]));
    expect(posts.every((r) => r.headers['x-quire-signature'] && r.headers['webhook-signature'])).toBe(true);
    expect(posts.filter((r) => r.headers.authorization === `Bearer ${SECRET}`)).toHaveLength(posts.length - 2);
  });

  it('one that stores only the first version: updated fails, out-of-date cannot be judged', async () => {
    let first: string | null = null;
    receiver.respond((req) => {
      if (req.method === 'POST') {
        first ??= req.rawBody.toString('utf8');
        return { json: { url: `${receiver.url}/page`, id: 'x' } };
      }
      if (req.path !== '/page' || !first) return { status: 404 };
      const { article } = JSON.parse(first) as { article: { html: string } };
      return { headers: { 'content-type': 'text/html' }, body: `<!doctype html><body>${article.html}</body>` };
    });
    const report = await run(target());
    const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(byId.updated).toMatchObject({ ok: false, code: 'UPDATE_NOT_SHOWN' });
    expect(byId.updated!.detail).toMatch(/shows version 1, not version 2/);
    expect(byId['out-of-date']).toMatchObject({ ok: true, warning: true, code: 'NOT_CHECKED' });
  });

  it('one that does not answer: the first request fails with why, nothing else is sent', async () => {
    const closed = await startHttpsReceiver();
    const url = `${closed.url}/hook`;
    await closed.close();
    const report = await run({ url, layout: { baseUrl: closed.url, articlePath: null } });
    expect(report.rules[0]).toMatchObject({ id: 'published', ok: false, code: 'CONNECTION_REFUSED' });
    expect(report.rules.slice(1).every((r) => r.ok && r.code === 'NOT_CHECKED')).toBe(true);
    expect(report.ok).toBe(false);
    expect(report.cleanup).toMatch(/did not answer/);
  });
});
