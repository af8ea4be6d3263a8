// The server's background sender: every few seconds, delivers what is due in the outbox
// (retries a publish run left behind, deliveries queued while the server was down).
import { drainOutbox, type DeliveryDeps } from './delivery-runner.ts';

export const WORKER_INTERVAL_MS = 5_000;

export function startDeliveryWorker(deps: DeliveryDeps, intervalMs = WORKER_INTERVAL_MS): { stop(): Promise<void>; wake(): void } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = drainOutbox(deps, { concurrency: 4 })
      .then((s) => {
        if (s.attempts) deps.log?.(`Webhook deliveries: ${s.delivered} delivered, ${s.failed} failed, ${s.attempts - s.delivered - s.failed} to retry.`);
      })
      .catch((e: unknown) => deps.log?.(`Webhook delivery worker: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    wake: tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
