// `quire worker [--concurrency <n>] [--per-host <n>]` (npm run worker): only delivers, until
// SIGTERM or SIGINT (then it stops claiming, finishes what is in flight and exits 0).
import { startFleetWorker } from '../../delivery/fleet-worker.ts';
import { StateStoreError } from '../../store/state-store.ts';
import type { CliContext } from '../context.ts';
import { createLogger } from '../../observe/log-lines.ts';
import { deliveryLine } from '../../observe/server-observability.ts';

export async function runWorker(ctx: CliContext, opts: { concurrency: number; perHost: number | null; healthIntervalSeconds: number }): Promise<number> {
  if (ctx.config.databaseUrl === null) ctx.err('warning: QUIRE_DATABASE_URL is not set: this worker shares the SQLite state of this machine only');
  const deps = ctx.app.delivery();
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
      ctx.err(
        `quire worker: the webhook secret of ${hook.siteId} cannot be opened with this worker's server secret (${ctx.config.secret !== null ? 'QUIRE_SECRET' : 'the one generated in the state dir, QUIRE_SECRET being unset'}): ` +
          'give every worker the same QUIRE_SECRET as the server that saved the webhooks. Nothing was claimed.',
      );
      return 1;
    }
  }
  // One line per delivery attempt as it is recorded, as the server logs them (QUIRE_LOG_FORMAT),
  // and the worker's own lines through the same logger, in order.
  const logger = createLogger({ format: ctx.config.logFormat, write: (chunk) => process.stderr.write(chunk) });
  ctx.app.onClose(() => logger.flush());
  deps.log = logger.message;
  deps.observeAttempt = (attempt) => logger.delivery(deliveryLine(attempt));
  const worker = startFleetWorker(deps, { concurrency: opts.concurrency, perHost: opts.perHost, healthIntervalMs: opts.healthIntervalSeconds * 1000 });
  const stop = (signal: string) => {
    ctx.err(`worker: ${signal}: no new claims; finishing what is in flight`);
    void worker.stop();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await worker.done;
  return 0;
}
