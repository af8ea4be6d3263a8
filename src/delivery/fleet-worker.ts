// `quire worker`: a process that only delivers, any number of them on any number of machines
// against one state (PostgreSQL). It drains what is due, then looks again at the next due time
// (at most every pollMs: other processes queue meanwhile), or at once when the store tells it
// that deliveries became due (PostgreSQL: LISTEN/NOTIFY). Stopping stops claiming; what is in
// flight is finished and recorded. A health line says what it sent and what the fleet has left.
import { newLeaseOwner } from '../store/state-store.ts';
import { DEFAULT_TIMEOUT_MS } from './deliver.ts';
import { drainOutbox, type DeliveryDeps } from './delivery-runner.ts';
import { createHostCap } from './host-cap.ts';

export interface FleetWorkerOptions {
  concurrency: number;
  /** Requests in flight per receiving host, across the whole fleet; null: no cap. */
  perHost: number | null;
  healthIntervalMs: number;
  /** Longest wait before looking for due deliveries again (a store that wakes idle workers makes this a fallback). */
  pollMs?: number;
  /** Told each time the worker has sent all that is due and starts to wait (tests). */
  onIdle?: () => void;
}

export interface FleetWorker {
  /** Stops claiming, finishes what is in flight; resolves when the worker has stopped. */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped (after stop(), or a failure it rejects with). */
  done: Promise<void>;
}

export function startFleetWorker(deps: DeliveryDeps, opts: FleetWorkerOptions): FleetWorker {
  const log = deps.log ?? (() => undefined);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hostCap = opts.perHost
    ? createHostCap(deps, { perHost: opts.perHost, owner: newLeaseOwner('worker-slots'), leaseMs: timeoutMs + 10_000 })
    : null;
  let stopping = false;
  let wake: (() => void) | null = null;
  // Told by the store that deliveries became due (NOTIFY): set while draining too, so the wait
  // that follows is skipped.
  let woken = false;
  const onDue = () => {
    woken = true;
    wake?.();
  };
  const window = { sent: 0, failed: 0, since: deps.now() };

  const health = async (what: string) => {
    const pending = await deps.store.outbox.pendingSummary();
    const oldest =
      pending.oldestCreatedAt === null ? '-' : `${Math.round((deps.now() - pending.oldestCreatedAt) / 1000)} s`;
    const seconds = Math.round((deps.now() - window.since) / 1000);
    log(
      `worker ${what}: ${window.sent} sent, ${window.failed} failed in the last ${seconds} s; ${pending.count} pending in all, the oldest waiting ${oldest}`,
    );
    window.sent = window.failed = 0;
    window.since = deps.now();
  };
  const healthTimer = setInterval(
    () =>
      void health('health').catch((e: unknown) => log(`worker health: ${e instanceof Error ? e.message : String(e)}`)),
    opts.healthIntervalMs,
  );
  healthTimer.unref();

  const loop = async () => {
    const unwatch = (await deps.store.watchDue?.(onDue)) ?? null;
    try {
      await work();
    } finally {
      await unwatch?.();
    }
  };
  const work = async () => {
    log(
      `worker started: ${opts.concurrency} at once${opts.perHost ? `, at most ${opts.perHost} per receiving host across every worker` : ''}`,
    );
    while (!stopping) {
      woken = false;
      await drainOutbox(
        { ...deps, hostCap },
        {
          concurrency: opts.concurrency,
          stop: () => stopping,
          onAttempt: (_id, r) => {
            if (r.outcome.kind === 'delivered') window.sent++;
            else window.failed++;
          },
        },
      );
      if (stopping) break;
      if (woken) continue;
      const next = await deps.store.outbox.nextDueAt(null);
      const wait = Math.min(opts.pollMs ?? 1000, next === null ? Infinity : Math.max(0, next - deps.now()));
      if (woken) continue;
      if (wait > 0) opts.onIdle?.();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    await health('stopped, nothing left in flight');
  };
  const done = loop().finally(() => clearInterval(healthTimer));
  return {
    done,
    async stop() {
      stopping = true;
      wake?.();
      await done;
    },
  };
}
