// A conformance check: runs a receiver through what Quire will do to it, with a test article,
// looking at its site after each step, then judges the rules (rules.ts). The steps, in order:
//   1. a valid `published` (version 1), then the same delivery again (its retry: same webhook-id);
//   2. an `updated` (version 2), then a newer one (version 3); the page at the receiver's reply
//      URL is verified live; then the first attempt of the version 2 delivery arrives late (its
//      webhook-id, its older webhook-timestamp) and must change nothing;
//   3. a forged request (wrong Bearer token, wrong signatures), which must be answered 401;
//   4. the right Bearer with wrong signatures, and a wrong Bearer with the right signatures: what
//      the receiver verifies; a receiver that verifies signatures gets the raw-body pair: the JSON
//      spelled otherwise and correctly signed (accept), and spaced out under the original
//      signature (refuse);
//   5. a `deleted` event for the test article, to receivers that opted in to extra events.
// The timestamps of steps 1 and 2 are a minute back and ten seconds apart, as a sender that
// retries would send them; the rest are now.
import { newDeliveryId } from '../../store/state-store.ts';
import type { SafeClient } from '../../net/safe-client.ts';
import { receiverSite, type SiteLayout } from './receiver-site.ts';
import { summarize, type ConformanceReport } from './report.ts';
import { judge, verifiesOf, type Observations } from './rules.ts';
import {
  accepted,
  answerOf,
  makeWrongSecret,
  sendTestRequest,
  statusOf,
  type Sent,
  type TestRequest,
} from './signed-request.ts';
import { makeTestArticle, respaced, type TestArticle } from './test-article.ts';
import { verifyLivePage } from './verify-live-page.ts';

export interface ConformanceDeps {
  /** Sends the test requests: the delivery client (https, public hosts). */
  webhookClient: SafeClient;
  /** Reads the receiver's pages and sitemap: verify_integration's client. */
  pageClient: SafeClient;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Each test request's time-out, as a delivery's. */
  timeoutMs: number;
  /** How long a page may take to show an accepted change. */
  settleMs?: number;
}

export interface ConformanceTarget {
  siteId: string;
  url: string;
  secret: string;
  /** The webhook opted in to `unpublished`/`deleted` events: the test article is deleted at the end. */
  extraEvents: boolean;
  layout: SiteLayout;
}

const PAGE_TIMEOUT_MS = 10_000;
const PAGE_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_SETTLE_MS = 3_000;

export async function runConformance(
  deps: ConformanceDeps,
  target: ConformanceTarget,
  test: TestArticle = makeTestArticle(),
): Promise<ConformanceReport> {
  const receiver = {
    client: deps.webhookClient,
    url: target.url,
    secret: target.secret,
    wrongSecret: makeWrongSecret(),
    timeoutMs: deps.timeoutMs,
    now: deps.now,
  };
  const send = (r: TestRequest) => sendTestRequest(receiver, r);
  const site = receiverSite(
    {
      client: deps.pageClient,
      timeoutMs: PAGE_TIMEOUT_MS,
      maxBytes: PAGE_MAX_BYTES,
      settleMs: deps.settleMs ?? DEFAULT_SETTLE_MS,
      sleep: deps.sleep,
    },
    target.layout,
    test,
  );
  const right = { bearer: 'right', signature: 'right' } as const;
  const nowSec = () => Math.floor(deps.now() / 1000);
  const start = nowSec() - 60;
  const newId = () => newDeliveryId(deps.now());
  // Where the receiver last said the article is.
  let reply: string | null = null;
  const sent = async (r: TestRequest): Promise<Sent> => {
    const s = await send(r);
    if (s.outcome.kind === 'delivered' && s.outcome.replyUrl) reply = s.outcome.replyUrl;
    return s;
  };

  const first: TestRequest = {
    event: 'published',
    body: test.body('published', 1),
    deliveryId: newId(),
    timestampSec: start,
    ...right,
  };
  const o: Observations = {
    published: await sent(first),
    redelivery: null,
    listing: null,
    updated: null,
    afterUpdated: null,
    newer: null,
    afterNewer: null,
    stale: null,
    afterStale: null,
    forged: null,
    afterForged: null,
    bearerOnly: null,
    signatureOnly: null,
    unusual: null,
    altered: null,
    live: null,
  };
  if (statusOf(o.published) === null) return report(o, target, test, 'nothing was stored: the receiver did not answer');

  o.redelivery = await sent({ ...first, timestampSec: start + 10, attempt: 2 });
  if (accepted(o.redelivery)) o.listing = await site.listing(reply);

  const second: TestRequest = {
    event: 'updated',
    body: test.body('updated', 2),
    deliveryId: newId(),
    timestampSec: start + 20,
    ...right,
  };
  o.updated = await sent(second);
  if (accepted(o.updated)) o.afterUpdated = await site.look(reply, [1, 2], 2);
  o.newer = await sent({
    event: 'updated',
    body: test.body('updated', 3),
    deliveryId: newId(),
    timestampSec: start + 30,
    ...right,
  });
  if (accepted(o.newer)) {
    o.afterNewer = await site.look(reply, [1, 2, 3], 3);
    const replied: string | null = reply;
    if (replied)
      o.live = {
        url: replied,
        result: await verifyLivePage(
          { client: deps.pageClient, timeoutMs: PAGE_TIMEOUT_MS },
          { slug: test.slug, url: replied, html: test.article(3).html, updatedAt: null, author: null },
        ),
      };
  }
  o.stale = await send(second); // its reply is not where the article is now
  if (o.afterNewer?.seen) o.afterStale = await site.look(reply, [1, 2, 3], null);

  const now = nowSec();
  o.forged = await send({
    event: 'updated',
    body: test.body('updated', 'forged'),
    deliveryId: newId(),
    timestampSec: now,
    bearer: 'wrong',
    signature: 'wrong',
  });
  if (statusOf(o.forged) === 401) o.afterForged = await site.look(reply, ['forged', 3, 2, 1], null);

  const latest = (r: Pick<TestRequest, 'bearer' | 'signature'>): TestRequest => ({
    event: 'updated',
    body: test.body('updated', 3),
    deliveryId: newId(),
    timestampSec: now,
    ...r,
  });
  o.bearerOnly = await sent(latest({ bearer: 'right', signature: 'wrong' }));
  o.signatureOnly = await sent(latest({ bearer: 'wrong', signature: 'right' }));
  const verifies = verifiesOf(o);
  if (verifies === 'signature' || verifies === 'both') {
    o.unusual = await sent({ ...latest(right), body: test.unusualBody('updated', 3) });
    const original = test.body('updated', 3);
    o.altered = await sent({ ...latest(right), body: respaced(original), signedBody: original });
  }
  return report(o, target, test, await cleanUp());

  async function cleanUp(): Promise<string> {
    if (!target.extraEvents)
      return `left on the receiver: ${test.slug}${reply ? ` (${reply})` : ''}. The webhook contract has no delete: remove it by hand, or register the webhook with --extra-events so that the check sends a \`deleted\` event for it`;
    const s = await send({
      event: 'deleted',
      body: test.deletedBody(),
      deliveryId: newId(),
      timestampSec: nowSec(),
      ...right,
    });
    return accepted(s)
      ? `removed: the receiver accepted a \`deleted\` event for ${test.slug} (${answerOf(s)})`
      : `left on the receiver: ${test.slug}; the \`deleted\` event sent for it got ${answerOf(s)}`;
  }
}

function report(o: Observations, target: ConformanceTarget, test: TestArticle, cleanup: string): ConformanceReport {
  const rules = judge(o);
  return {
    ...summarize(rules),
    site: target.siteId,
    webhookUrl: target.url,
    testSlug: test.slug,
    verifies: verifiesOf(o),
    rules,
    cleanup,
  };
}
