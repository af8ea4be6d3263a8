// The server's background sender: every few seconds, delivers what is due in the outbox
// (retries a publish run left behind, deliveries queued while the server was down).
import { drainOutbox, type DeliveryDeps } from './delivery-runner.ts';

export const WORKER_INTERVAL_MS = 5_000;

/** What the worker says of itself (the server's /readyz reads it). */
export interface WorkerHealth {
  running: boolean;
  /** The last drain's failure (state unreadable), until a drain succeeds again. */
  error: string | null;
}

export function startDeliveryWorker(
  deps: DeliveryDeps,
  intervalMs = WORKER_INTERVAL_MS,
): { stop(): Promise<void>; wake(): void; health(): WorkerHealth } {
  let running: Promise<void> | null = null;
  let stopped = false;
  let error: string | null = null;
  const tick = () => {
    if (running || stopped) return;
    running = drainOutbox(deps, { concurrency: 4 })
      .then((s) => {
        error = null;
        if (s.attempts)
          deps.log?.(
            `Webhook deliveries: ${s.delivered} delivered, ${s.failed} failed, ${s.attempts - s.delivered - s.failed} to retry.`,
          );
      })
      .catch((e: unknown) => {
        error = e instanceof Error ? e.message : String(e);
        deps.log?.(`Webhook delivery worker: ${error}`);
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    wake: tick,
    health: () => ({ running: !stopped, error }),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
