// The server following a branch: on every tick or push notification, sync the checkout and, when
// it holds a commit not yet handled, hand it to `publish` (build, swap, deliver). A fetch that
// fails is logged and tried again at the next tick or push; the served output stays as it is.
import { errorText } from '../problems/problem.ts';
import { createCoalescingRunner } from './coalescing-runner.ts';
import type { Checkout } from './checkout.ts';

/** What a publish run came to: `retry` (e.g. the publish lock was held) tries the commit again. */
export type PublishOutcome = 'done' | 'retry';

export interface FollowerDeps {
  checkout: Checkout;
  /** Seconds between fetches; 0: only on push notifications. */
  intervalSeconds: number;
  /** Builds and publishes the checkout as it is now. */
  publish: (commit: string) => Promise<PublishOutcome>;
  out: (line: string) => void;
  err: (line: string) => void;
  /** How soon a commit whose publish must be retried (the lock was held) is tried again, at the latest (default 30 s). */
  retryDelayMs?: number;
}

export interface Follower {
  /** Asks for a fetch now (coalesced: at most one running and one waiting). */
  trigger(): Promise<void>;
  /** Starts the ticks and the first run. */
  start(): void;
  stop(): Promise<void>;
}

export function createFollower(deps: FollowerDeps): Follower {
  const { checkout, out, err } = deps;
  // The commit last published (or whose build failed): fetching it again does nothing more.
  let handled: string | null = null;
  let failing = false;
  let retryTimer: NodeJS.Timeout | null = null;
  // Without ticks (or with slow ones) a commit that could not be published yet still gets its turn soon.
  const retrySoon = () => {
    if (retryTimer) return;
    const delay = Math.min(
      deps.retryDelayMs ?? 30_000,
      deps.intervalSeconds > 0 ? deps.intervalSeconds * 1000 : Infinity,
    );
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void runner.trigger();
    }, delay);
    retryTimer.unref();
  };
  const runner = createCoalescingRunner(async () => {
    let commit: string;
    try {
      ({ commit } = await checkout.sync());
      if (failing) out('Fetching works again.');
      failing = false;
    } catch (e) {
      failing = true;
      err(
        `Fetch failed (serving what was last built; trying again ${deps.intervalSeconds ? `in ${deps.intervalSeconds} s` : 'at the next push'}): ${errorText(e)}`,
      );
      return;
    }
    if (commit === handled) return;
    out(`Following: commit ${commit.slice(0, 12)}.`);
    try {
      if ((await deps.publish(commit)) === 'done') handled = commit;
      else retrySoon();
    } catch (e) {
      err(`Publishing commit ${commit.slice(0, 12)} failed: ${errorText(e)}`);
    }
  });
  let timer: NodeJS.Timeout | null = null;
  return {
    trigger: () => runner.trigger(),
    start() {
      void runner.trigger();
      if (deps.intervalSeconds > 0) {
        timer = setInterval(() => void runner.trigger(), deps.intervalSeconds * 1000);
        timer.unref();
      }
    },
    async stop() {
      if (timer) clearInterval(timer);
      if (retryTimer) clearTimeout(retryTimer);
      await runner.stop();
    },
  };
}
