// `quire deliveries retry` and the Deliveries tab's "Send pending now": pending deliveries (waiting
// for their next attempt time after a failure) are made due now and sent at once, once the
// receiver is fixed. Each is claimed with a lease like every other sender's, so a running
// server's worker and this never send the same delivery at once, and one slug's deliveries never
// overlap. Delivered ones are not sent again (that is `redeliver`), nor failed ones.
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { newLeaseOwner, type Delivery } from '../store/state-store.ts';
import type { AttemptResult } from './deliver.ts';
import { sendOne, type DeliveryDeps } from './delivery-runner.ts';

export type RetryTarget = { siteId: string | null } | { deliveryId: string };

export interface RetryOutcome {
  id: string;
  siteId: string;
  slug: string;
  event: string;
  /**
   * `delivered`, `pending` (failed again; retried at nextAttemptAt), `failed` (for good),
   * `superseded` (a newer publish of its slug replaced it meanwhile), or `busy`: another sender
   * holds it and it was not waited for long enough to see its verdict.
   */
  state: 'delivered' | 'pending' | 'failed' | 'superseded' | 'busy';
  /** This sender's attempt; null when another sender made it (or holds it). */
  attempt: AttemptResult['attempt'] | null;
  nextAttemptAt: number | null;
  lastError: string | null;
}

export type RetryResult =
  | ({ ok: false } & Problem<
      Extract<CodeIn<'delivery-request'>, 'DELIVERY_NOT_FOUND' | 'NOT_PENDING' | 'NO_WEBHOOK' | 'DISABLED'>
    >)
  | {
      ok: true;
      outcomes: RetryOutcome[] /** Made due but left to the other senders (over sendAtMost). */;
      leftDue: number;
    };

export interface RetryOptions {
  /**
   * How long to wait for a delivery another sender holds, then report what that sender made of
   * it (the CLI); 0 reports it as `busy` at once (a web request).
   */
  waitForOthersMs?: number;
  pollMs?: number;
  /** Send at most this many here; the rest are only made due (a web request must end soon). */
  sendAtMost?: number;
  /** Deliveries sent at once (default 4, as the server's worker). */
  concurrency?: number;
  onOutcome?: (outcome: RetryOutcome) => void;
}

export async function retryPending(
  deps: DeliveryDeps,
  target: RetryTarget,
  opts: RetryOptions = {},
): Promise<RetryResult> {
  const { outbox, webhooks } = deps.store;
  const now = deps.now();
  let ids: string[];
  if ('deliveryId' in target) {
    const d = await outbox.get(target.deliveryId);
    if (!d) return { ok: false, code: 'DELIVERY_NOT_FOUND', message: `no delivery ${target.deliveryId}` };
    if (d.state !== 'pending') return { ok: false, code: 'NOT_PENDING', message: notPendingMessage(d) };
    const refused = await refusal(deps, d.siteId);
    if (refused) return refused;
    await outbox.makeOneDue(d.id, now);
    ids = [d.id];
  } else {
    if (target.siteId !== null) {
      const refused = await refusal(deps, target.siteId);
      if (refused) return refused;
    }
    // Every site: those whose webhook is gone or disabled keep waiting (their events resume when
    // the webhook is set again).
    ids = [];
    for (const id of await outbox.pendingMadeDue(target.siteId, now)) {
      const hook = await webhooks.get((await outbox.get(id))?.siteId ?? '');
      if (hook !== null && hook.disabledAt === null) ids.push(id);
    }
  }
  await outbox.releaseDeadLeases(now);
  const owner = newLeaseOwner('retry');
  const leftDue = Math.max(0, ids.length - (opts.sendAtMost ?? ids.length));
  if (leftDue) ids = ids.slice(0, ids.length - leftDue);
  const outcomes: RetryOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const outcome = await sendOrFollow(deps, ids[next++]!, owner, opts);
      outcomes.push(outcome);
      opts.onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, ids.length) }, worker));
  return { ok: true, outcomes, leftDue };
}

/** Sends one delivery; when another sender holds it, waits (up to the option) for its verdict. */
async function sendOrFollow(deps: DeliveryDeps, id: string, owner: string, opts: RetryOptions): Promise<RetryOutcome> {
  const deadline = deps.now() + (opts.waitForOthersMs ?? 0);
  const before = (await deps.store.outbox.get(id))!;
  for (;;) {
    const current = (await deps.store.outbox.get(id))!;
    // Settled by another sender while this one waited (or superseded by a newer publish), or
    // failed again by it and rescheduled: that is its answer, not a reason to send once more.
    if (current.state !== 'pending') return outcomeOf(current, null, current.state);
    if (current.attempts > before.attempts) return outcomeOf(current, null, 'pending');
    const sent = await sendOne(deps, id, owner);
    if (sent) return outcomeOf((await deps.store.outbox.get(id))!, sent.result.attempt, sent.verdict);
    // Another sender holds it (or another delivery of its slug).
    if (deps.now() >= deadline) return outcomeOf(current, null, 'busy');
    await deps.sleep(opts.pollMs ?? 250);
  }
}

function outcomeOf(d: Delivery, attempt: RetryOutcome['attempt'], state: RetryOutcome['state']): RetryOutcome {
  return {
    id: d.id,
    siteId: d.siteId,
    slug: d.slug,
    event: d.event,
    state,
    attempt,
    nextAttemptAt: state === 'pending' ? d.nextAttemptAt : null,
    lastError: d.lastError ?? (d.lastStatus !== null && state !== 'delivered' ? `HTTP ${d.lastStatus}` : null),
  };
}

async function refusal(deps: DeliveryDeps, siteId: string): Promise<RetryResult | null> {
  const hook = await deps.store.webhooks.get(siteId);
  if (!hook)
    return {
      ok: false,
      code: 'NO_WEBHOOK',
      message: `${siteId} has no webhook registered; its pending deliveries wait until one is set`,
    };
  if (hook.disabledAt !== null) {
    return {
      ok: false,
      code: 'DISABLED',
      message: `webhook of ${siteId} is DISABLED (${hook.disabledReason ?? 'disabled'}); set it again to resume: quire webhook set ${siteId} --url <https-url>`,
    };
  }
  return null;
}

function notPendingMessage(d: Delivery): string {
  switch (d.state) {
    case 'delivered':
      return `${d.id} was delivered; \`retry\` sends only pending deliveries (to send it again: quire redeliver ${d.id})`;
    case 'failed':
      return `${d.id} failed for good (${d.lastError ?? `HTTP ${d.lastStatus ?? '---'}`}); \`retry\` sends only pending deliveries (to send it again: quire redeliver ${d.id})`;
    default:
      return `${d.id} was superseded by a newer delivery of "${d.slug}"; nothing to retry`;
  }
}
