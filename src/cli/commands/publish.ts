// `quire publish [--site <id>] [--dry-run] [--baseline]` (npm run publish).
import { publish, type PublishPlan, type PublishReport, type SiteReport } from '../../publish/publish.ts';
import { attemptErrorText } from '../../store/state-store.ts';
import { untilServed } from '../../snapshot/served-build.ts';
import { isKnownSite, type CliContext } from '../context.ts';
import { reportBuild } from '../report.ts';
import { problemPathsFrom } from '../../follow/followed-content.ts';
import { withCode } from '../../problems/problem.ts';

export async function runPublish(ctx: CliContext, opts: { site: string | null; dryRun: boolean; baseline: boolean; deliver: boolean }): Promise<number> {
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
    err(`warning: the served-build record in ${config.stateDir} cannot be read; sending without waiting for a running server to serve this build`);
    return;
  }
  if (wait.status !== 'timed-out') return;
  err(`warning: the running server (pid ${wait.pid}) still serves the previous build after ${(wait.waitedMs / 1000).toFixed(1)} s; sending anyway: a receiver that fetches at once may get the previous version`);
}

/** The plan as `publish` prints it (also the server's log when it follows a repository). */
export function printPlan(plan: PublishPlan, { out, err }: Pick<CliContext, 'out' | 'err'>): void {
  const verb = plan.dryRun ? 'would send' : plan.baseline ? 'recorded without sending' : 'queued';
  if (plan.dirty) err('warning: content/ has uncommitted changes; publishing what is on disk');
  out(`Publishing ${plan.commit ? `commit ${plan.commit.slice(0, 12)}` : 'content (not a git commit)'}${plan.dryRun ? ' — dry run, nothing is sent or recorded' : ''}`);
  for (const s of plan.sites) {
    if (s.skipped) {
      // Still recorded: the change feed (GET /v1/changes) tells every site's story.
      const feed = plan.dryRun ? 'would record' : 'recorded';
      out(`  ${s.siteId}: skipped, ${s.skipped}: ${feed} ${s.feedChanges} change${s.feedChanges === 1 ? '' : 's'} for the change feed, nothing sent (quire webhook set ${s.siteId} --url <https-url> --generate-secret)`);
      continue;
    }
    const since = s.firstPublish ? 'first publish' : `since ${s.previousCommit ? s.previousCommit.slice(0, 12) : 'last publish'}${changedLine(s)}`;
    out(`  ${s.siteId}: ${s.events.length} event${s.events.length === 1 ? '' : 's'} ${verb}, ${since}${s.disabled ? ` — webhook DISABLED (${s.disabled}); set it again to resume` : ''}`);
    for (const e of s.events.slice(0, 50)) out(`    ${e.event.padEnd(11)} ${e.slug}`);
    if (s.events.length > 50) out(`    … and ${s.events.length - 50} more`);
    const notSent = notSentLine(s);
    if (notSent) out(`    ${notSent}`);
  }
}

/**
 * ` (2 files changed)`, ` (1 file with uncommitted changes)`, ` (2 files changed, 1 file with uncommitted
 * changes)`: an edit published from disk is not counted as committed, nor left out as "0 changed".
 */
function changedLine({ changedFiles, uncommittedFiles }: SiteReport): string {
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  const uncommitted = uncommittedFiles ? `${files(uncommittedFiles)} with uncommitted changes` : null;
  const committed = changedFiles !== null && (changedFiles > 0 || !uncommitted) ? `${files(changedFiles)} changed` : null;
  const parts = [committed, uncommitted].filter((p) => p !== null);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Said out loud so nobody assumes the receiver removed what it was never told about. */
function notSentLine({ siteId, notSent }: SiteReport): string | null {
  const parts = [
    notSent.withdrawn ? `${notSent.withdrawn} withdrawn` : null,
    notSent.deleted ? `${notSent.deleted} deleted` : null,
  ].filter((p) => p !== null);
  if (!parts.length) return null;
  const count = notSent.withdrawn + notSent.deleted;
  return `${parts.join(' and ')} article${count === 1 ? '' : 's'} not sent: the receiver did not opt in to unpublished/deleted events (quire webhook set ${siteId} --url <url> --extra-events)`;
}

/** The outcome as `publish` prints it (problem paths shown from `pathsFrom`); returns the exit status. */
export function printReport(report: PublishReport, { out, err }: Pick<CliContext, 'out' | 'err'>, pathsFrom?: string): number {
  switch (report.status) {
    case 'build-failed':
      reportBuild(report.build, err, pathsFrom);
      err('Nothing was published.');
      return 1;
    case 'locked': {
      const h = report.holder;
      err(`Another publish is running (pid ${h.pid} on ${h.host}, since ${new Date(h.acquiredAt).toISOString()}); waited 60 s. Run again when it has finished.`);
      return 3;
    }
    case 'unknown-site':
      err(withCode(`no site "${report.siteId}" in the build`, 'SITE_UNKNOWN'));
      return 1;
  }
  // A disabled webhook sends nothing, whatever was planned: the run did not do its job.
  const disabled = report.sites.filter((s) => s.disabled);
  for (const s of disabled) err(`webhook of ${s.siteId} is DISABLED (${s.disabled}): nothing is sent to it; its events wait. Set it again to resume: quire webhook set ${s.siteId} --url <https-url>`);
  if (report.dryRun) return disabled.length ? 1 : 0;
  if (!report.delivered) {
    const n = report.pending.length;
    out(`Queued only (--no-deliver): ${n} deliver${n === 1 ? 'y waits' : 'ies wait'} for the workers (\`quire worker\`) or a running server; nothing was sent here. \`quire deliveries --stats\` shows their progress.`);
    return disabled.length ? 1 : 0;
  }
  const d = report.drain;
  out(`Delivered ${d.delivered} of ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}.`);
  for (const f of report.failed) err(`  failed   ${f.siteId} ${f.event} ${f.slug} (${f.id}): ${f.lastError ?? `HTTP ${f.lastStatus}`}`);
  for (const p of report.pending.slice(0, 50)) {
    err(`  pending  ${p.siteId} ${p.event} ${p.slug} (${p.id}), next attempt ${p.nextAttemptAt ? new Date(p.nextAttemptAt).toISOString() : 'when the webhook is enabled'}${p.lastError ? `: ${p.lastError}` : ''}`);
  }
  if (report.pending.length || report.failed.length) {
    err(`${report.pending.length} pending, ${report.failed.length} failed: pending deliveries are retried by the next publish and by the running server; see \`quire deliveries\`.`);
    return 1;
  }
  return disabled.length ? 1 : 0;
}
