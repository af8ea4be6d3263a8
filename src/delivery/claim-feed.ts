// Where drainOutbox's senders take their next delivery from: deliveries claimed ahead, many in one
// claim, with the webhook of each site looked up once per while (ClaimFeed).
import type { ClaimedDelivery } from '../store/state-store.ts';
import type { GroupRecorder } from './group-recorder.ts';
import { leaseUntil, TargetCache, type DeliveryDeps } from './send-claimed.ts';

/**
 * Claims deliveries CLAIM_ROUNDS senders' worth at a time, in one statement: a claim is a
 * committed write, and its commit was the largest local cost of a delivery, so larger claims sent
 * more a second (docs/benchmarks-log.md, "figures first recorded in code comments").
 */
const CLAIM_ROUNDS = 4;
/** Each site's webhook is looked up again after this long (a change made meanwhile is seen). */
const TARGETS_FOR_MS = 1000;

export type Claimed = { delivery: ClaimedDelivery; targets: TargetCache };

/**
 * What the senders take their next delivery from: claimed deliveries, with the next claim made
 * as soon as fewer than one claim's worth are left, so senders do not wait for the database
 * between claims. (Claiming when only a round was left was too late: a claim's round trip on a
 * busy machine outlasted the round, and the senders waited for it; docs/benchmarks-log.md, "a
 * claim plan that stale statistics broke".) A claimed delivery waits at most 2 × CLAIM_ROUNDS + 1
 * attempts for a free sender; its lease covers that wait and its own. Runs until a claim finds
 * nothing, or stop() says so.
 */
export class ClaimFeed {
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
