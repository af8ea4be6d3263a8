// Sends what is due in the outbox: claims each delivery (so concurrent senders never double-send),
// attempts it, and records the attempt and its next time. Used by `publish` (with a short wait
// for quick retries) and by the server's background worker. The senders take their deliveries
// from a ClaimFeed (claim-feed.ts), send each one as send-claimed.ts does, and record their
// attempts in groups (group-recorder.ts).
import { newLeaseOwner } from '../store/state-store.ts';
import type { AttemptResult } from './deliver.ts';
import { ClaimFeed } from './claim-feed.ts';
import { GroupRecorder } from './group-recorder.ts';
import { deliverClaimed, leaseUntil, type DeliveryDeps } from './send-claimed.ts';

export { sendOne, type DeliveryDeps, type ObservedAttempt } from './send-claimed.ts';

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

const NOTHING_DUE_PAUSE_MS = 50;
const OTHERS_POLL_MS = 200;
