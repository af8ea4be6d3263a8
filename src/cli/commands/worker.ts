// `quire worker [--concurrency <n>] [--per-host <n>]` (npm run worker): only delivers, until
// SIGTERM or SIGINT (then it stops claiming, finishes what is in flight and exits 0).
import { startFleetWorker } from '../../delivery/fleet-worker.ts';
import type { CliContext } from '../context.ts';

export async function runWorker(ctx: CliContext, opts: { concurrency: number; perHost: number | null; healthIntervalSeconds: number }): Promise<number> {
  if (ctx.config.databaseUrl === null) ctx.err('warning: QUIRE_DATABASE_URL is not set: this worker shares the SQLite state of this machine only');
  const deps = ctx.app.delivery();
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
