// `quire redeliver <id>` and the web app's Redeliver: the same bytes again as a new delivery (a
// new id, so receivers that skip ids they have processed do not skip it), sent now.
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { newLeaseOwner } from '../store/state-store.ts';
import type { AttemptResult } from './deliver.ts';
import { sendOne, type DeliveryDeps } from './delivery-runner.ts';
import { explainOutcome, type Explanation } from './explain-attempt.ts';

export type RedeliverResult =
  | ({ sent: false } & Problem<
      Extract<CodeIn<'delivery-request'>, 'DELIVERY_NOT_FOUND' | 'STILL_PENDING' | 'SUPERSEDED' | 'NO_WEBHOOK' | 'BUSY'>
    >)
  | { sent: true; deliveryId: string; attempt: AttemptResult['attempt']; explanation: Explanation; willRetry: boolean };

export async function redeliver(
  deps: DeliveryDeps,
  deliveryId: string,
  siteId: string | null = null,
): Promise<RedeliverResult> {
  const { outbox, webhooks } = deps.store;
  const original = await outbox.get(deliveryId);
  if (!original || (siteId !== null && original.siteId !== siteId))
    return { sent: false, code: 'DELIVERY_NOT_FOUND', message: `no delivery ${deliveryId}` };
  if (original.state === 'pending')
    return {
      sent: false,
      code: 'STILL_PENDING',
      message: `${deliveryId} is still queued; it is sent at its next attempt time`,
    };
  if (!(await webhooks.get(original.siteId)))
    return { sent: false, code: 'NO_WEBHOOK', message: `${original.siteId} has no webhook registered` };
  // An older payload must not overwrite a newer one at the receiver.
  const newer = original.origin !== 'test' ? await outbox.newerForSlug(original) : null;
  if (newer) {
    return {
      sent: false,
      code: 'SUPERSEDED',
      message: `a newer delivery of "${original.slug}" exists (${newer.id}); redeliver that one instead`,
    };
  }
  const now = deps.now();
  const owner = newLeaseOwner('redeliver');
  const id = await outbox.enqueue(
    {
      siteId: original.siteId,
      slug: original.slug,
      event: original.event,
      body: original.body,
      origin: 'redeliver',
      pageCheck: original.pageCheck,
    },
    now,
  );
  const sent = await sendOne(deps, id, owner);
  if (!sent)
    return {
      sent: false,
      code: 'BUSY',
      message: `another delivery of "${original.slug}" is in flight; ${id} is queued and will be sent after it`,
    };
  const willRetry = sent.verdict === 'pending';
  const { attempt, outcome } = sent.result;
  return {
    sent: true,
    deliveryId: id,
    attempt,
    explanation: explainOutcome(outcome, { willRetry, durationMs: attempt.durationMs }),
    willRetry,
  };
}
