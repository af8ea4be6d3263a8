// What the check of each delivered article's live page costs: 100 acknowledged deliveries of a
// site with S articles (its sitemap lists every one), checked by the real verifier (as the server
// and each worker run it: one page of a site at a time) through the SSRF-safe client against the
// reference site on loopback HTTPS in another process. Reports the verifier's CPU per check (its
// process: the fetches, the four checks, the state store) and the requests each check made to
// the site.
//   npm run bench -- --only page-checks
import { fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createThrowawayCa, issueServerCertificate } from '../../examples/site/throwaway-ca.ts';
import type { StoredArticle } from '../../examples/site/site.ts';
import { startPageVerifier } from '../../src/delivery/page-verifier.ts';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { VERIFIED_SITE } from '../../src/net/target-policy.ts';
import { openStateStore } from '../../src/store/state-store.ts';

/** Deliveries of distinct articles (a newer delivery of an article ends the older one's check). */
const CHECKS = 100;
const UPDATED_AT = '2026-05-01T10:00:00Z';
const AUTHOR = { name: 'Ann Example', url: 'https://ann.example.org/' };

export interface PageCheckCost {
  siteArticles: number;
  checks: number;
  cpuMsPerCheck: number;
  checksPerSecond: number;
  requestsPerCheck: number;
  byKind: { robots: number; sitemap: number; page: number };
  live: number;
}

function storedArticle(i: number): StoredArticle {
  const html = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(40)}</p>\n<p>Article ${i}.</p>`;
  return {
    id: `a-${i}`,
    slug: `a-${i}`,
    title: `Article ${i}`,
    metaDescription: '',
    html,
    updatedAt: UPDATED_AT,
    author: AUTHOR,
    sentAt: 0,
  };
}

async function measure(siteArticles: number): Promise<PageCheckCost> {
  const ca = await createThrowawayCa('bench CA (throwaway)', 1);
  const leaf = await issueServerCertificate(ca, { names: ['localhost'], ips: ['127.0.0.1'] });
  const articles = Array.from({ length: siteArticles }, (_, i) => storedArticle(i));
  const child = fork(path.join(import.meta.dirname, 'site-child.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-checks-'));
  const store = openStateStore(dir, 'bench-secret-0123456789abcdef0123456789');
  const client = createSafeClient({ allowPrivate: true, ca: ca.certPem, policy: VERIFIED_SITE, log: () => {} });
  try {
    child.send({ key: leaf.keyPem, cert: leaf.certPem, articles });
    const [{ url }] = (await once(child, 'message')) as [{ url: string }];
    for (let i = 0; i < CHECKS; i++) {
      const a = articles[i % siteArticles]!;
      const id = await store.outbox.enqueue(
        {
          siteId: 'bench',
          slug: a.slug,
          event: 'published',
          body: Buffer.from(JSON.stringify({ event: 'published', article: { id: a.id, slug: a.slug, html: a.html } })),
          origin: 'publish',
          pageCheck: {
            siteUrl: url,
            articleUrl: `${url}/blog/${a.slug}`,
            updatedAt: UPDATED_AT,
            author: AUTHOR,
            delayMs: 0,
          },
        },
        Date.now(),
      );
      const attempt = {
        url: `${url}/hook`,
        startedAt: Date.now(),
        durationMs: 1,
        status: 200,
        error: null,
        replyUrl: null,
        replyId: null,
      };
      await store.outbox.recordAttempt(id, attempt, { state: 'delivered' }, Date.now());
    }
    // One site: its pages are checked one at a time, as they are in every verifier and fleet.
    const started = Date.now();
    const cpu = process.cpuUsage();
    const verifier = startPageVerifier({ store, client, now: Date.now }, { pollMs: 5 });
    for (;;) {
      const c = await store.pageChecks.counts();
      if (c.pending === 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const used = process.cpuUsage(cpu);
    const seconds = (Date.now() - started) / 1000;
    await verifier.stop();
    child.send('count');
    const [byKind] = (await once(child, 'message')) as [{ robots: number; sitemap: number; page: number }];
    const counts = await store.pageChecks.counts();
    return {
      siteArticles,
      checks: CHECKS,
      cpuMsPerCheck: (used.user + used.system) / 1000 / CHECKS,
      checksPerSecond: CHECKS / seconds,
      requestsPerCheck: (byKind.robots + byKind.sitemap + byKind.page) / CHECKS,
      byKind,
      live: counts.live,
    };
  } finally {
    client.close();
    await store.close();
    child.send('exit');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPageChecks(): Promise<PageCheckCost[]> {
  return [await measure(100), await measure(2000)];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchPageChecks()) console.log(JSON.stringify(r));
}
