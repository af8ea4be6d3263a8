// `quire publish [--site <id>] [--dry-run] [--baseline]` (npm run publish).
import { publish } from '../../publish/publish.ts';
import { attemptErrorText } from '../../store/state-store.ts';
import { untilServed } from '../../snapshot/served-build.ts';
import { isKnownSite, type CliContext } from '../context.ts';
import { printPlan, printReport } from '../../app/publish-report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';

export async function runPublish(
  ctx: CliContext,
  opts: { site: string | null; dryRun: boolean; baseline: boolean; deliver: boolean },
): Promise<number> {
  const { config, out, err } = ctx;
  if (opts.site !== null && !(await isKnownSite(ctx, opts.site))) return 1; // before building anything
  const deps = ctx.app.delivery();
  const settings = ctx.app.buildSettings;
  const report = await publish(
    { ...deps, settings, untilServed: (buildId) => untilThisServerServes(ctx, buildId) },
    {
      siteId: opts.site,
      dryRun: opts.dryRun,
      baseline: opts.baseline,
      deliver: opts.deliver,
      retryWindowMs: config.publishRetryWindowMs,
      lockWaitMs: 60_000,
      // The plan first, then each delivery's result as it comes, then the summary.
      onPlan: (plan) => printPlan(plan, ctx),
      onAttempt: (id, r) => {
        const a = r.attempt;
        const delivered = r.outcome.kind === 'delivered';
        const line = `  ${delivered ? '✓' : '✗'} ${id}  ${a.status ?? '---'}  ${a.durationMs} ms${a.error ? `  ${attemptErrorText(a)}` : ''}${a.replyUrl ? `  → ${a.replyUrl}` : ''}`;
        (delivered ? out : err)(line);
      },
    },
  );
  return printReport(report, ctx, problemPathsFrom(settings));
}

/** How long a publish waits for the running server to serve its build before sending anyway. */
const SERVED_WAIT_MS = 10_000;

/**
 * A `quire start` serving this dist/ (it records its build in the state dir) takes up a new build
 * within moments: the webhooks wait for it, as receivers fetch what they announce. Silent when no
 * server runs or it is quick; a warning when it is late.
 */
async function untilThisServerServes({ config, app, err }: CliContext, buildId: string): Promise<void> {
  const wait = await untilServed(config.stateDir, app.buildSettings.distDir, buildId, SERVED_WAIT_MS);
  if (wait.status === 'unreadable') {
    err(
      `warning: the served-build record in ${config.stateDir} cannot be read; sending without waiting for a running server to serve this build`,
    );
    return;
  }
  if (wait.status !== 'timed-out') return;
  err(
    `warning: the running server (pid ${wait.pid}) still serves the previous build after ${(wait.waitedMs / 1000).toFixed(1)} s; sending anyway: a receiver that fetches at once may get the previous version`,
  );
}
