// `quire deliveries [--site <id>] [--json]` (each attempt, with its delivery's page check),
// `quire deliveries --site <id> --problems`, `--stats`, and `quire redeliver <delivery-id>`.
import { redeliver } from '../../delivery/redeliver.ts';
import { attemptErrorText } from '../../store/state-store.ts';
import { isKnownSite, refuseCommandLine, type CliContext } from '../context.ts';
import { printable } from '../../text/printable.ts';
import { withCode } from '../../problems/problem.ts';
import { attemptJson, pageProblemJson } from '../../delivery/attempt-json.ts';
import { verificationWords } from '../../delivery/verification-view.ts';

export async function runDeliveries(
  ctx: CliContext,
  opts: { site: string | null; json: boolean; limit: number },
): Promise<number> {
  const deps = ctx.app.delivery();
  // A site removed from content/ still has its history; any other name is a mistake.
  const hasHistory = opts.site !== null && (await deps.store.outbox.list({ siteId: opts.site, limit: 1 })).length > 0;
  if (opts.site !== null && !hasHistory && !(await isKnownSite(ctx, opts.site))) return 1;
  const log = await deps.store.outbox.attemptLog({ siteId: opts.site, limit: opts.limit });
  if (opts.json) {
    ctx.out(JSON.stringify(log.map(attemptJson)));
    return 0;
  }
  if (!log.length) {
    ctx.out('no delivery attempts yet');
    return 0;
  }
  ctx.out(['time', 'delivery', 'site', 'event', 'slug', 'status', 'ms', 'result', 'page'].join('\t'));
  for (const a of log) {
    ctx.out(
      [
        new Date(a.startedAt).toISOString(),
        a.deliveryId,
        a.siteId,
        a.event + (a.origin === 'publish' ? '' : ` (${a.origin})`),
        a.slug,
        a.status ?? '---',
        a.durationMs,
        [attemptErrorText(a), a.replyUrl ? `→ ${a.replyUrl}` : null].filter(Boolean).join(' ') || a.deliveryState,
        verificationWords(a.verification),
      ]
        .map((field) => printable(String(field)))
        .join('\t'),
    ); // a tab or line break in a reply cannot shift the columns
  }
  return 0;
}

export async function runRedeliver(ctx: CliContext, id: string | undefined): Promise<number> {
  if (!id) {
    return refuseCommandLine(ctx.err, 'usage: quire redeliver <delivery-id>   (ids are listed by `quire deliveries`)');
  }
  const deps = ctx.app.delivery();
  const result = await redeliver(deps, id);
  if (!result.sent) {
    ctx.err(withCode(result.message, result.code));
    return 1;
  }
  (result.explanation.ok ? ctx.out : ctx.err)(
    `${result.explanation.message}\n(new delivery ${result.deliveryId}${result.willRetry ? ', will be retried' : ''})`,
  );
  return result.explanation.ok ? 0 : 1;
}

/** `quire deliveries --stats`: the outbox as the whole fleet sees it (every sender of the state). */
export async function runDeliveryStats(ctx: CliContext, opts: { json: boolean; now: number }): Promise<number> {
  const { store } = ctx.app.delivery();
  const s = await store.outbox.stats(opts.now, opts.now - 3_600_000);
  const checks = await store.pageChecks.counts();
  const oldestAgeSeconds =
    s.oldestPendingAt === null ? null : Math.max(0, Math.round((opts.now - s.oldestPendingAt) / 1000));
  if (opts.json) {
    ctx.out(
      JSON.stringify({
        ...s.counts,
        inFlight: s.inFlight,
        senders: s.senders,
        oldestPendingAgeSeconds: oldestAgeSeconds,
        lastHour: { delivered: s.attempts.delivered, failed: s.attempts.failed },
        verification: checks,
      }),
    );
    return 0;
  }
  ctx.out(
    `pending     ${s.counts.pending}${oldestAgeSeconds !== null ? ` (the oldest waiting ${oldestAgeSeconds} s)` : ''}`,
  );
  ctx.out(`in flight   ${s.inFlight}, by ${s.senders} sender${s.senders === 1 ? '' : 's'}`);
  ctx.out(
    `last hour   ${s.attempts.delivered} delivered, ${s.attempts.failed} failed attempt${s.attempts.failed === 1 ? '' : 's'}`,
  );
  ctx.out(`in all      ${s.counts.delivered} delivered, ${s.counts.failed} failed, ${s.counts.superseded} superseded`);
  ctx.out(
    `live pages  ${checks.live} live, ${checks.render_problem} render problem${checks.render_problem === 1 ? '' : 's'}, ${checks.unverified} unverified, ${checks.pending} to check${checks.off ? `, ${checks.off} not checked (off)` : ''}`,
  );
  return 0;
}

/** `quire deliveries --site <id> --problems`: per article, its newest delivery whose page check found it not live and right. */
export async function runPageProblems(ctx: CliContext, opts: { site: string; json: boolean }): Promise<number> {
  const { store } = ctx.app.delivery();
  const hasHistory = (await store.outbox.list({ siteId: opts.site, limit: 1 })).length > 0;
  if (!hasHistory && !(await isKnownSite(ctx, opts.site))) return 1;
  const problems = await store.pageChecks.problems(opts.site);
  if (opts.json) {
    ctx.out(JSON.stringify(problems.map((p) => pageProblemJson(opts.site, p))));
    return problems.length ? 1 : 0;
  }
  if (!problems.length) {
    ctx.out(`no page problems on ${opts.site}: every article checked after its last delivery is live and right`);
    return 0;
  }
  for (const p of problems) {
    const v = p.verification;
    ctx.out([p.slug, verificationWords(v), v.url ?? '', p.deliveryId].map((field) => printable(field)).join('\t'));
    if (v.message) ctx.out(printable(`  ${v.message}`));
    if (v.fix) ctx.out(printable(`  fix: ${v.fix}`));
  }
  return 1;
}
