// How a publish reads on a terminal: its plan, then its outcome (`quire publish`, and the log of
// a server that follows a repository, whose every new commit is published).
import type { PublishPlan, PublishReport, SiteReport } from '../publish/publish.ts';
import { withCode } from '../problems/problem.ts';
import { reportBuild } from './build-report.ts';
import type { Output } from './output.ts';

/** The plan as `publish` prints it (also the server's log when it follows a repository). */
export function printPlan(plan: PublishPlan, { out, err }: Output): void {
  const verb = plan.dryRun ? 'would send' : plan.baseline ? 'recorded without sending' : 'queued';
  if (plan.dirty) err('warning: content/ has uncommitted changes; publishing what is on disk');
  out(
    `Publishing ${plan.commit ? `commit ${plan.commit.slice(0, 12)}` : 'content (not a git commit)'}${plan.dryRun ? ' — dry run, nothing is sent or recorded' : ''}`,
  );
  for (const s of plan.sites) {
    if (s.skipped) {
      // Still recorded: the change feed (GET /v1/changes) tells every site's story.
      const feed = plan.dryRun ? 'would record' : 'recorded';
      out(
        `  ${s.siteId}: skipped, ${s.skipped}: ${feed} ${s.feedChanges} change${s.feedChanges === 1 ? '' : 's'} for the change feed, nothing sent (quire webhook set ${s.siteId} --url <https-url> --generate-secret)`,
      );
      continue;
    }
    const since = s.firstPublish
      ? 'first publish'
      : `since ${s.previousCommit ? s.previousCommit.slice(0, 12) : 'last publish'}${changedLine(s)}`;
    out(
      `  ${s.siteId}: ${s.events.length} event${s.events.length === 1 ? '' : 's'} ${verb}, ${since}${s.disabled ? ` — webhook DISABLED (${s.disabled}); set it again to resume` : ''}`,
    );
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
  const committed =
    changedFiles !== null && (changedFiles > 0 || !uncommitted) ? `${files(changedFiles)} changed` : null;
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
export function printReport(report: PublishReport, { out, err }: Output, pathsFrom?: string): number {
  switch (report.status) {
    case 'build-failed':
      reportBuild(report.build, err, pathsFrom);
      err('Nothing was published.');
      return 1;
    case 'locked': {
      const h = report.holder;
      err(
        `Another publish is running (pid ${h.pid} on ${h.host}, since ${new Date(h.acquiredAt).toISOString()}); waited 60 s. Run again when it has finished.`,
      );
      return 3;
    }
    case 'unknown-site':
      err(withCode(`no site "${report.siteId}" in the build`, 'SITE_UNKNOWN'));
      return 1;
  }
  // A disabled webhook sends nothing, whatever was planned: the run did not do its job.
  const disabled = report.sites.filter((s) => s.disabled);
  for (const s of disabled)
    err(
      `webhook of ${s.siteId} is DISABLED (${s.disabled}): nothing is sent to it; its events wait. Set it again to resume: quire webhook set ${s.siteId} --url <https-url>`,
    );
  if (report.dryRun) return disabled.length ? 1 : 0;
  if (!report.delivered) {
    const n = report.pending.length;
    out(
      `Queued only (--no-deliver): ${n} deliver${n === 1 ? 'y waits' : 'ies wait'} for the workers (\`quire worker\`) or a running server; nothing was sent here. \`quire deliveries --stats\` shows their progress.`,
    );
    return disabled.length ? 1 : 0;
  }
  const d = report.drain;
  out(`Delivered ${d.delivered} of ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}.`);
  for (const f of report.failed)
    err(`  failed   ${f.siteId} ${f.event} ${f.slug} (${f.id}): ${f.lastError ?? `HTTP ${f.lastStatus}`}`);
  for (const p of report.pending.slice(0, 50)) {
    err(
      `  pending  ${p.siteId} ${p.event} ${p.slug} (${p.id}), next attempt ${p.nextAttemptAt ? new Date(p.nextAttemptAt).toISOString() : 'when the webhook is enabled'}${p.lastError ? `: ${p.lastError}` : ''}`,
    );
  }
  if (report.pending.length || report.failed.length) {
    err(
      `${report.pending.length} pending, ${report.failed.length} failed: pending deliveries are retried by the next publish and by the running server; see \`quire deliveries\`.`,
    );
    return 1;
  }
  return disabled.length ? 1 : 0;
}
