// The verifier: beside the sender of deliveries (the server's worker, each `quire worker`), it
// checks the live page of each acknowledged delivery once its check falls due (see PageChecks in
// src/store/). It runs on its own timer at low concurrency, so it never holds up a delivery, and
// touches nothing of the outbox: a page found wrong is reported, never delivered again. Its work
// is bounded: each check by a time budget, one site checked at a time (across a fleet too), the
// checks waiting per site capped (the oldest dropped, said in the log).
import type { SafeClient } from '../net/safe-client.ts';
import { newLeaseOwner, type ClaimedPageCheck, type StateStore } from '../store/state-store.ts';
import { CHECK_BUDGET_MS, checkDeliveredPage, failedCheck } from './check-delivered-page.ts';
import { hostOf, type HostCap } from './host-cap.ts';

export interface PageVerifierDeps {
  store: StateStore;
  /** The client that reads the receiving sites' pages (App.verifyClient: http or https, public hosts). */
  client: SafeClient;
  now: () => number;
  log?: (line: string) => void;
  /** The fleet's per-host cap (`quire worker --per-host`), which page checks respect too. */
  hostCap?: HostCap | null;
}

export interface PageVerifierOptions {
  /** Checks made at once by this verifier (each of another site). */
  concurrency?: number;
  /** Each request's time-out. */
  timeoutMs?: number;
  /** What one check may take in all. */
  budgetMs?: number;
  /** Checks waiting per site at most; beyond, the oldest are dropped. */
  maxWaitingPerSite?: number;
  /** How often it looks for due checks. */
  pollMs?: number;
}

export interface PageVerifier {
  /** Stops claiming; requests of the checks in flight not made yet fail at once; resolves when they are recorded. */
  stop(): Promise<void>;
  /** Looks for due checks now. */
  wake(): void;
}

export const PAGE_CHECK_DEFAULTS = {
  concurrency: 2,
  timeoutMs: 10_000,
  budgetMs: CHECK_BUDGET_MS,
  maxWaitingPerSite: 1000,
  pollMs: 1000,
};
/** The cap is enforced this often (a statement over every waiting check). */
const TRIM_EVERY_MS = 10_000;
/** A claim's lease outlasts its check's budget by this much. */
const LEASE_MARGIN_MS = 30_000;
/** How long a check waits for a slot of its site's host before it is given back. */
const HOST_WAIT_MS = 5_000;

export function startPageVerifier(deps: PageVerifierDeps, options: PageVerifierOptions = {}): PageVerifier {
  const opts = { ...PAGE_CHECK_DEFAULTS, ...options };
  const log = deps.log ?? (() => undefined);
  const owner = newLeaseOwner('verify');
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let round: Promise<void> | null = null;
  let again = false;
  let trimAt = 0;

  const tick = () => {
    if (stopping) return;
    if (round) {
      again = true;
      return;
    }
    round = claimDue()
      .catch((e: unknown) => log(`Page checks: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        round = null;
        if (again) {
          again = false;
          tick();
        }
      });
  };

  const claimDue = async () => {
    const now = deps.now();
    if (now >= trimAt) {
      trimAt = now + TRIM_EVERY_MS;
      for (const { siteId, dropped } of await deps.store.pageChecks.dropOverCap(opts.maxWaitingPerSite, now))
        log(
          `Page checks of ${siteId}: ${dropped} dropped, unverified (more than ${opts.maxWaitingPerSite} waited: the site is slow or does not answer)`,
        );
    }
    const free = opts.concurrency - inFlight.size;
    if (free <= 0 || stopping) return;
    const claimed = await deps.store.pageChecks.take(now, free, owner, now + opts.budgetMs + LEASE_MARGIN_MS);
    for (const c of claimed) {
      const running: Promise<void> = checkOne(c)
        .catch((e: unknown) =>
          log(`Page check of ${c.siteId}/${c.slug}: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => {
          inFlight.delete(running);
          tick();
        });
      inFlight.add(running);
    }
  };

  const checkOne = async (claimed: ClaimedPageCheck) => {
    const host = deps.hostCap ? hostOf(claimed.replyUrl ?? claimed.plan.articleUrl) : null;
    const leave = host ? await deps.hostCap!.enter(host, deps.now() + HOST_WAIT_MS) : null;
    if (host && !leave) {
      await deps.store.pageChecks.release([claimed.deliveryId], owner);
      return;
    }
    try {
      const result = await checkDeliveredPage(
        {
          client: deps.client,
          now: deps.now,
          timeoutMs: opts.timeoutMs,
          budgetMs: opts.budgetMs,
          stopping: () => stopping,
        },
        claimed,
      ).catch((e: unknown) => failedCheck(claimed, deps.now(), e));
      // Stopping cut its requests short: what it found says nothing of the page, so it is given
      // back for the next verifier (a page found live was found live).
      if (stopping && result.state !== 'live') {
        await deps.store.pageChecks.release([claimed.deliveryId], owner);
        return;
      }
      await deps.store.pageChecks.record(claimed.deliveryId, owner, result);
      if (result.state !== 'live')
        log(
          `Page check of ${claimed.siteId}/${claimed.slug} (${claimed.deliveryId}): ${result.state.replace('_', ' ')} ${result.code ?? ''} at ${result.url}${result.nextCheckAt !== null ? '; checked again later' : ''}`,
        );
    } finally {
      await leave?.();
    }
  };

  const timer = setInterval(tick, opts.pollMs);
  timer.unref();
  tick();
  return {
    wake: tick,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await round;
      await Promise.allSettled([...inFlight]);
    },
  };
}
