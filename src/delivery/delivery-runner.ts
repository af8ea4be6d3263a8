// Sends what is due in the outbox: claims each delivery (so concurrent senders never double-send),
// attempts it, and records the attempt and its next time. Used by `publish` (with a short wait
// for quick retries) and by the server's background worker.
import type { SafeClient } from '../net/safe-client.ts';
import { newLeaseOwner, type ClaimedDelivery, type StateStore, type WebhookRecord } from '../store/state-store.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { attemptRecordOf, NO_WEBHOOK_WORDS } from './attempt-record.ts';
import { attemptDelivery, DEFAULT_TIMEOUT_MS, type AttemptResult } from './deliver.ts';
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

export interface DrainOptions {
  siteId?: string | null;
  /** Wait up to this long in all for retries that fall due (publish: a few quick retries). */
  retryWindowMs?: number;
  concurrency?: number;
  /** Called after every attempt (progress output). */
  onAttempt?: (deliveryId: string, result: AttemptResult) => void;
  /** Checked before each claim: true stops claiming; what is in flight is finished and recorded. */
  stop?: () => boolean;
  /**
   * Wait for deliveries other senders are sending (a running server, a worker) to settle, up to
   * one lease: `publish` reports their outcome instead of calling them pending.
   */
  awaitOthers?: boolean;
}

export interface DrainSummary {
  attempts: number;
  delivered: number;
  failed: number;
}

export async function drainOutbox(deps: DeliveryDeps, opts: DrainOptions = {}): Promise<DrainSummary> {
  const owner = newLeaseOwner('drain');
  const recorder = new GroupRecorder(deps.store);
  const freed = await deps.store.outbox.releaseDeadLeases(deps.now());
  if (freed) deps.log?.(`Webhook deliveries: ${freed} held by a sender of this machine that died are due again`);
  const summary: DrainSummary = { attempts: 0, delivered: 0, failed: 0 };
  const deadline = deps.now() + (opts.retryWindowMs ?? 0);
  const othersDeadline = leaseUntil(deps, deps.now());
  let toldOfOthers = false;
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  for (;;) {
    if (opts.stop?.()) return summary;
    const feed = new ClaimFeed(deps, { owner, concurrency, siteId: opts.siteId ?? null, stop: opts.stop, recorder });
    const worker = async () => {
      for (let claimed = await feed.next(); claimed; claimed = await feed.next()) {
        const { delivery, targets } = claimed;
        const result = await deliverClaimed(deps, delivery, targets, recorder, owner);
        if (!result) continue; // given back: its host's slots stayed busy
        summary.attempts++;
        if (result.verdict === 'delivered') summary.delivered++;
        if (result.verdict === 'failed') summary.failed++;
        opts.onAttempt?.(delivery.id, result.result);
      }
    };
    const senders = await Promise.allSettled(Array.from({ length: concurrency }, worker));
    await feed.giveBackUnsent(); // stopped with some claimed and not sent: due again at once
    await recorder.flush();
    for (const s of senders) if (s.status === 'rejected') throw s.reason;
    if (feed.claimedAny) continue;
    // Nothing claimed: nothing due, or what is due is held by other senders (or behind another
    // delivery of its article). Look again when the next one falls due or its lease ends, not at
    // once, until the retry window ends.
    const wake = await deps.store.outbox.nextDueAt(opts.siteId ?? null);
    if (wake !== null && wake <= deadline) {
      await deps.sleep(Math.max(NOTHING_DUE_PAUSE_MS, wake - deps.now()));
      continue;
    }
    const others =
      opts.awaitOthers && deps.now() < othersDeadline
        ? await deps.store.outbox.inFlight(opts.siteId ?? null, deps.now())
        : 0;
    if (!others) return summary;
    if (!toldOfOthers)
      deps.log?.(
        `Waiting for ${others} deliver${others === 1 ? 'y' : 'ies'} another sender (a running server or worker) is sending`,
      );
    toldOfOthers = true;
    await deps.sleep(OTHERS_POLL_MS);
  }
}

type Recorder = Pick<StateStore['outbox'], 'recordAttempt'>;
type AttemptToRecord = Parameters<StateStore['outbox']['recordAttempts']>[0][number];

/**
 * Group commit for attempt records: one statement for many deliveries instead of one per
 * delivery (the commit was most of a delivery's local cost). One group is written at a time; what
 * is recorded meanwhile waits for it and goes in the next, so groups grow as the database slows.
 * A crash can lose the record of a delivery that completed in that window; it is then sent again
 * (receivers upsert) — the same at-least-once promise as a request in flight. A group that fails
 * to be written is reported by the next flush(), and stops the feed (ClaimFeed).
 */
class GroupRecorder implements Recorder {
  private pending: AttemptToRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  failure: unknown = null;
  constructor(private readonly store: StateStore) {}
  async recordAttempt(
    id: string,
    attempt: AttemptResult['attempt'],
    verdict: AttemptToRecord['verdict'],
    now: number,
  ): Promise<void> {
    this.pending.push({ id, attempt, verdict, now });
    if (this.writing) return; // written when the group being written is
    if (this.pending.length >= GROUP_MAX) this.writeGroup();
    else this.timer ??= setTimeout(() => this.writeGroup(), GROUP_WAIT_MS);
  }
  /** Writes what is pending and waits until everything recorded so far is written. */
  async flush(): Promise<void> {
    while (this.writing || this.pending.length) {
      if (!this.writing) this.writeGroup();
      await this.writing;
    }
    const failure = this.failure;
    this.failure = null;
    if (failure) throw failure;
  }
  private writeGroup(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing || !this.pending.length) return;
    const group = this.pending.splice(0, GROUP_LIMIT);
    this.writing = this.store.outbox
      .recordAttempts(group)
      .then(
        () => undefined,
        (e: unknown) => {
          this.failure ??= e;
        },
      )
      .finally(() => {
        this.writing = null;
        if (!this.pending.length) return;
        // What was recorded during a write to a database server (the store says which writes it
        // has) waits for a full group or GROUP_WAIT_MS like any other: written at once, groups
        // stayed at the few recorded during one write (a worker's 20,000 deliveries took ~1,700
        // transactions instead of ~1,000, and PostgreSQL a fifth more CPU). On a local store
        // (SQLite) it is written at once: there a statement costs little, and the leases it ends
        // free sooner.
        if (this.pending.length >= GROUP_MAX || this.store.writes === 'local') this.writeGroup();
        else this.timer ??= setTimeout(() => this.writeGroup(), GROUP_WAIT_MS);
      });
  }
}

/**
 * A group is written at once when this many wait, else after GROUP_WAIT_MS; at most GROUP_LIMIT
 * in one. 20 ms rather than 5: at a few thousand deliveries a second, groups of 2–15 became
 * groups of 10–64, with fewer statements for the worker and PostgreSQL (a slug's next delivery
 * may wait that much longer for its lease).
 */
const GROUP_MAX = 64;
const GROUP_WAIT_MS = 20;
const GROUP_LIMIT = 1000;

type Target = { webhook: WebhookRecord; secret: string } | null;

/** Each site's webhook and opened secret, looked up once per batch instead of per delivery. */
class TargetCache {
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

/**
 * Claims deliveries CLAIM_ROUNDS senders' worth at a time, in one statement: a claim is a
 * committed write, and its commit was the largest local cost of a delivery (claiming 8 at a time
 * gave 70 % of a bare client's rate in the deliveries benchmark, 32 at a time 80 %).
 */
const CLAIM_ROUNDS = 4;
/** Each site's webhook is looked up again after this long (a change made meanwhile is seen). */
const TARGETS_FOR_MS = 1000;
const NOTHING_DUE_PAUSE_MS = 50;
const OTHERS_POLL_MS = 200;

type Claimed = { delivery: ClaimedDelivery; targets: TargetCache };

/**
 * What the senders take their next delivery from: claimed deliveries, with the next claim made
 * as soon as fewer than one claim's worth are left, so senders do not wait for the database
 * between claims. (Claiming when only a round was left was too late at a few thousand a second:
 * a claim's round trip on a busy machine outlasted the round, and senders waited ~2,600 times in
 * a 22,000-delivery run; ~450 times since, mostly at the start of a drain.) A claimed delivery
 * waits at most 2 × CLAIM_ROUNDS + 1 attempts for a free sender; its lease covers that wait and
 * its own. Runs until a claim finds nothing, or stop() says so.
 */
class ClaimFeed {
  private exhausted = false;
  private targets: TargetCache;
  private targetsSince: number;
  private claimed: Claimed[] = [];
  claimedAny = false;
  /** The claim under way: the senders that find nothing claimed wait for it instead of claiming too. */
  private claiming: Promise<void> | null = null;
  constructor(
    private readonly deps: DeliveryDeps,
    private readonly opts: {
      owner: string;
      concurrency: number;
      siteId: string | null;
      stop?: () => boolean;
      recorder: GroupRecorder;
    },
  ) {
    this.targets = new TargetCache(deps.store);
    this.targetsSince = deps.now();
  }
  async next(): Promise<Claimed | null> {
    for (;;) {
      if (this.opts.stop?.() || this.opts.recorder.failure) return null;
      const claimed = this.claimed.shift();
      if (claimed) {
        if (this.claimed.length < this.opts.concurrency * CLAIM_ROUNDS) this.claimAhead();
        return claimed;
      }
      if (this.exhausted && !this.claiming) return null;
      this.claimAhead();
      await this.claiming;
    }
  }
  private claimAhead(): void {
    if (this.claiming || this.exhausted) return;
    this.claiming = this.claimMore().finally(() => {
      this.claiming = null;
    });
    // A failure reaches the senders waiting on it; one made ahead, with none waiting, ends the feed there too.
    this.claiming.catch(() => {
      this.exhausted = true;
    });
  }
  private async claimMore(): Promise<void> {
    const now = this.deps.now();
    if (now - this.targetsSince >= TARGETS_FOR_MS) {
      this.targets = new TargetCache(this.deps.store);
      this.targetsSince = now;
    }
    const taken = await this.deps.store.outbox.takeDue(
      now,
      this.opts.siteId,
      this.opts.concurrency * CLAIM_ROUNDS,
      this.opts.owner,
      leaseUntil(this.deps, now, 2 * CLAIM_ROUNDS + 2),
    );
    if (!taken.length) {
      this.exhausted = true;
      return;
    }
    this.claimedAny = true;
    const targets = this.targets;
    for (const delivery of taken) this.claimed.push({ delivery, targets });
  }
  async giveBackUnsent(): Promise<void> {
    await this.claiming?.catch(() => undefined);
    const unsent = this.claimed.splice(0);
    if (unsent.length)
      await this.deps.store.outbox.release(
        unsent.map((c) => c.delivery.id),
        this.opts.owner,
      );
  }
}

// The lease outlives the attempts it may wait for and its own, each bounded by the timeout, so it
// cannot expire while the delivery waits or its request runs. When a sender starts on it, at
// least its own time-out and LEASE_MARGIN_MS are left: waiting for a host slot may use
// HOST_WAIT_MS of the margin.
const LEASE_MARGIN_MS = 30_000;
const HOST_WAIT_MS = 25_000;
const leaseUntil = (deps: DeliveryDeps, now: number, attempts = 1) =>
  now + (deps.timeoutMs ?? DEFAULT_TIMEOUT_MS) * attempts + LEASE_MARGIN_MS;

type SendResult = { verdict: 'delivered' | 'failed' | 'pending'; result: AttemptResult };

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
async function deliverClaimed(
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
