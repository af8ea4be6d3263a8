// `quire worker [--concurrency <n>] [--per-host <n>]` (npm run worker): the delivery worker
// (src/app/worker-process.ts) until SIGTERM or SIGINT (then it stops claiming, finishes what is
// in flight and exits 0).
import { startWorker } from '../../app/worker-process.ts';
import type { CliContext } from '../context.ts';

export async function runWorker(
  ctx: CliContext,
  opts: { concurrency: number; perHost: number | null; healthIntervalSeconds: number },
): Promise<number> {
  const worker = await startWorker(ctx.app, opts, ctx);
  if (!worker) return 1;
  const stop = (signal: string) => {
    ctx.err(`worker: ${signal}: no new claims; finishing what is in flight`);
    void worker.stop();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await worker.done;
  return 0;
}
