// Sending one delivery a sender holds the lease of: its site's webhook looked up, a slot of its
// receiving host taken (with a per-host cap), the attempt made, and what it came to recorded with
// its next time (retry-policy.ts). What every sender of the outbox is given (DeliveryDeps), and
// how long a claim's lease runs.
import type { SafeClient } from '../net/safe-client.ts';
import type { ClaimedDelivery, StateStore, WebhookRecord } from '../store/state-store.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { attemptRecordOf, NO_WEBHOOK_WORDS } from './attempt-record.ts';
import { attemptDelivery, DEFAULT_TIMEOUT_MS, type AttemptResult } from './deliver.ts';
import type { Recorder } from './group-recorder.ts';
import { hostOf, type HostCap } from './host-cap.ts';
import { nextDelayMs, retryDecisionOf } from './retry-policy.ts';

export interface DeliveryDeps {
  store: StateStore;
  client: SafeClient;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  timeoutMs?: number;
  random?: () => number;
  log?: (line: string) => void;
  /** Told of every attempt once it is recorded (the server's delivery log and metrics). */
  observeAttempt?: (attempt: ObservedAttempt) => void;
  /** A cap on requests in flight per receiving host, across every sender (`quire worker --per-host`). */
  hostCap?: HostCap | null;
}

export interface ObservedAttempt {
  delivery: Pick<ClaimedDelivery, 'id' | 'siteId' | 'slug' | 'event' | 'attempts'>;
  verdict: SendResult['verdict'];
  result: AttemptResult;
}

type Target = { webhook: WebhookRecord; secret: string } | null;

/** Each site's webhook and opened secret, looked up once per batch instead of per delivery. */
export class TargetCache {
  private readonly targets = new Map<string, Promise<Target>>();
  constructor(private readonly store: StateStore) {}
  get(siteId: string): Promise<Target> {
    let target = this.targets.get(siteId);
    if (!target) {
      target = this.lookUp(siteId);
      this.targets.set(siteId, target);
    }
    return target;
  }
  private async lookUp(siteId: string): Promise<Target> {
    const webhook = await this.store.webhooks.get(siteId);
    const secret = webhook ? await this.store.webhooks.secretOf(siteId) : null;
    return webhook && secret !== null ? { webhook, secret } : null;
  }
}

// The lease outlives the attempts it may wait for and its own, each bounded by the timeout, so it
// cannot expire while the delivery waits or its request runs. When a sender starts on it, at
// least its own time-out and LEASE_MARGIN_MS are left: waiting for a host slot may use
// HOST_WAIT_MS of the margin.
const LEASE_MARGIN_MS = 30_000;
const HOST_WAIT_MS = 25_000;
export const leaseUntil = (deps: DeliveryDeps, now: number, attempts = 1) =>
  now + (deps.timeoutMs ?? DEFAULT_TIMEOUT_MS) * attempts + LEASE_MARGIN_MS;

export type SendResult = { verdict: 'delivered' | 'failed' | 'pending'; result: AttemptResult };

/** Claims, attempts and records one delivery; null when another sender holds it. */
export async function sendOne(deps: DeliveryDeps, id: string, owner: string): Promise<SendResult | null> {
  const now = deps.now();
  const delivery = await deps.store.outbox.take(id, owner, now, leaseUntil(deps, now));
  return delivery ? deliverClaimed(deps, delivery, undefined, undefined, owner) : null;
}

/**
 * Attempts a delivery this sender holds the lease of, and records the attempt; null when it gave
 * the delivery back unsent, its host's slots having stayed busy for as long as its lease allows.
 */
export async function deliverClaimed(
  deps: DeliveryDeps,
  delivery: ClaimedDelivery,
  targets: TargetCache = new TargetCache(deps.store),
  recorder: Recorder = deps.store.outbox,
  owner: string,
): Promise<SendResult | null> {
  const { webhooks } = deps.store;
  const { id } = delivery;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = deps.now();
  const target = await targets.get(delivery.siteId);
  if (!target) {
    const outcome: AttemptOutcome = { kind: 'no_webhook', message: NO_WEBHOOK_WORDS };
    const result: AttemptResult = {
      attempt: attemptRecordOf({ url: '', startedAt: started, durationMs: 0 }, outcome),
      outcome,
    };
    await recorder.recordAttempt(id, result.attempt, { state: 'failed' }, started);
    deps.observeAttempt?.({ delivery, verdict: 'failed', result });
    return { verdict: 'failed', result };
  }
  const host = deps.hostCap ? hostOf(target.webhook.url) : null;
  // Waiting for a slot must leave the lease time for the request itself.
  const leave = host ? await deps.hostCap!.enter(host, started + HOST_WAIT_MS) : null;
  if (host && !leave) {
    await deps.store.outbox.release([id], owner);
    return null;
  }
  let result: AttemptResult;
  try {
    result = await attemptDelivery(
      deps.client,
      delivery,
      { url: target.webhook.url, secret: target.secret },
      { now: deps.now(), timeoutMs },
    );
  } finally {
    await leave?.();
  }
  const now = deps.now();
  const attemptsMade = delivery.attempts + 1;
  const decision = retryDecisionOf(result.outcome);
  let verdict: 'delivered' | 'failed' | 'pending';
  if (decision.kind === 'success') {
    verdict = 'delivered';
    await recorder.recordAttempt(id, result.attempt, { state: 'delivered' }, now);
  } else if (decision.kind === 'retry') {
    const delay = nextDelayMs(attemptsMade, decision.retryAfterMs, deps.random);
    verdict = delay === null ? 'failed' : 'pending';
    await recorder.recordAttempt(
      id,
      result.attempt,
      delay === null ? { state: 'failed' } : { state: 'pending', nextAttemptAt: now + delay },
      now,
    );
  } else {
    verdict = 'failed';
    await recorder.recordAttempt(id, result.attempt, { state: 'failed' }, now);
    if (decision.disable) {
      await webhooks.disable(delivery.siteId, 'the receiver answered 410 Gone', now);
      deps.log?.(`webhook of ${delivery.siteId} disabled: the receiver answered 410 Gone; set it again to re-enable`);
    }
  }
  deps.observeAttempt?.({ delivery, verdict, result });
  return { verdict, result };
}
