// "Test connection": a real, signed delivery of the shape a spec-conforming receiver accepts and
// that leaves no junk there — the site's most recent published article as an `updated` event
// (an idempotent upsert). Sent once, not retried; logged with the other deliveries.
import { webhookArticleJsonOf, webhookBody } from '../articles/shapes.ts';
import { readArticleBody, readManifest } from '../export/export-files.ts';
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { newLeaseOwner } from '../store/state-store.ts';
import { attemptDelivery, type AttemptResult } from './deliver.ts';
import type { DeliveryDeps } from './delivery-runner.ts';
import { explainOutcome, type Explanation } from './explain-attempt.ts';

export type TestResult =
  | ({ sent: false } & Problem<Extract<CodeIn<'delivery-request'>, 'NO_WEBHOOK' | 'NO_ARTICLE'>>)
  | { sent: true; deliveryId: string; slug: string; attempt: AttemptResult['attempt']; explanation: Explanation };

export async function testWebhook(deps: DeliveryDeps & { distDir: string }, siteId: string): Promise<TestResult> {
  const { outbox, webhooks } = deps.store;
  const webhook = await webhooks.get(siteId);
  const secret = webhook ? await webhooks.secretOf(siteId) : null;
  if (!webhook || secret === null)
    return {
      sent: false,
      code: 'NO_WEBHOOK',
      message: 'No webhook is saved for this site yet: save a URL and a secret first.',
    };
  const site = readManifest(deps.distDir)?.sites[siteId];
  const slug = site ? Object.keys(site.articles)[0] : undefined; // the manifest lists newest first
  if (!slug)
    return {
      sent: false,
      code: 'NO_ARTICLE',
      message:
        'This site has no published article yet; Test connection sends the most recent one as an `updated` event.',
    };
  // Unchecked against the manifest: a build swapped in since still has a payload worth testing with.
  const json = webhookArticleJsonOf(readArticleBody(deps.distDir, siteId, slug));
  const now = deps.now();
  const body = Buffer.from(webhookBody('updated', json));
  const id = await outbox.enqueue({ siteId, slug, event: 'updated', body, origin: 'test' }, now, {
    owner: newLeaseOwner('test'),
    until: now + 300_000,
  });
  const result = await attemptDelivery(
    deps.client,
    (await outbox.get(id))!,
    { url: webhook.url, secret },
    { now, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) },
  );
  const verdict = result.outcome.kind === 'delivered' ? 'delivered' : 'failed';
  await outbox.recordAttempt(id, result.attempt, { state: verdict }, deps.now());
  deps.observeAttempt?.({ delivery: { id, siteId, slug, event: 'updated', attempts: 0 }, verdict, result });
  return {
    sent: true,
    deliveryId: id,
    slug,
    attempt: result.attempt,
    explanation: explainOutcome(result.outcome, { willRetry: false, durationMs: result.attempt.durationMs }),
  };
}
