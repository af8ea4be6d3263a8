// The delivery worker (`quire worker`): assembled here. It delivers what is queued, with the
// fleet's claims, leases and per-host cap, logs one line per attempt as the server does
// (QUIRE_LOG_FORMAT), and checks delivered articles' live pages beside it (page-verifier.ts). The command line stops it at a signal.
import { CHECK_BUDGET_MS } from '../delivery/check-delivered-page.ts';
import { startFleetWorker, type FleetWorker } from '../delivery/fleet-worker.ts';
import { createHostCap } from '../delivery/host-cap.ts';
import { startPageVerifier } from '../delivery/page-verifier.ts';
import { createLogger } from '../observe/log-lines.ts';
import { deliveryLine } from '../observe/server-observability.ts';
import { newLeaseOwner, StateStoreError } from '../store/state-store.ts';
import type { App } from './app.ts';
import type { Output } from './output.ts';

export interface WorkerOptions {
  concurrency: number;
  /** Requests in flight per receiving host, across the fleet; null: no cap. */
  perHost: number | null;
  healthIntervalSeconds: number;
}

/** The worker, claiming; null (told) when it could send nothing: its server secret opens no webhook secret. */
export async function startWorker(app: App, opts: WorkerOptions, { err }: Output): Promise<FleetWorker | null> {
  const { config } = app;
  if (config.databaseUrl === null)
    err('warning: QUIRE_DATABASE_URL is not set: this worker shares the SQLite state of this machine only');
  const deps = app.delivery();
  // Deliveries are signed with webhook secrets sealed under the server secret. A worker with
  // another one (a machine without the server's QUIRE_SECRET, which then made its own) could
  // send nothing: it is told so before it claims a delivery, not at its first one. Every secret
  // is sealed under the same server secret, so opening one tells (not all: a key derivation each).
  const [hook] = await deps.store.webhooks.list();
  if (hook) {
    try {
      await deps.store.webhooks.secretOf(hook.siteId);
    } catch (e) {
      if (!(e instanceof StateStoreError)) throw e;
      err(
        `quire worker: the webhook secret of ${hook.siteId} cannot be opened with this worker's server secret (${config.secret !== null ? 'QUIRE_SECRET' : 'the one generated in the state dir, QUIRE_SECRET being unset'}): ` +
          'give every worker the same QUIRE_SECRET as the server that saved the webhooks. Nothing was claimed.',
      );
      return null;
    }
  }
  // One line per delivery attempt as it is recorded, as the server logs them (QUIRE_LOG_FORMAT),
  // and the worker's own lines through the same logger, in order.
  const logger = createLogger({ format: config.logFormat, write: (chunk) => process.stderr.write(chunk) });
  app.onClose(() => logger.flush());
  deps.log = logger.message;
  deps.observeAttempt = (attempt) => logger.delivery(deliveryLine(attempt));
  const fleet = startFleetWorker(deps, {
    concurrency: opts.concurrency,
    perHost: opts.perHost,
    healthIntervalMs: opts.healthIntervalSeconds * 1000,
  });
  // Beside the sender, the checks of delivered articles' live pages, under the same per-host cap.
  const verifier = startPageVerifier({
    store: deps.store,
    client: app.verifyClient(),
    now: deps.now,
    log: logger.message,
    hostCap: opts.perHost
      ? createHostCap(deps, {
          perHost: opts.perHost,
          owner: newLeaseOwner('verify-slots'),
          leaseMs: CHECK_BUDGET_MS + 10_000,
        })
      : null,
  });
  return {
    done: fleet.done.finally(() => verifier.stop()),
    async stop() {
      await Promise.all([fleet.stop(), verifier.stop()]);
    },
  };
}
