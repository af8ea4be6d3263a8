// `quire deliveries retry [<delivery-id> | --site <id>]`: sends pending deliveries now, in this
// process, and prints each result as it comes (like publish); exit 1 if any is not delivered.
import { retryPending, type RetryOutcome, type RetryTarget } from '../../delivery/retry-now.ts';
import { attemptErrorText } from '../../store/state-store.ts';
import { isKnownSite, type CliContext } from '../context.ts';
import { withCode } from '../../problems/problem.ts';

/** How long to wait for a delivery another sender (a running server) is sending: its lease. */
const WAIT_FOR_OTHERS_MS = 120_000;

export async function runRetry(ctx: CliContext, target: RetryTarget): Promise<number> {
  const deps = ctx.app.delivery();
  if ('siteId' in target && target.siteId !== null) {
    // A site removed from content/ may still have deliveries waiting; any other name is a mistake.
    const hasHistory = (await deps.store.outbox.list({ siteId: target.siteId, limit: 1 })).length > 0;
    if (!hasHistory && !(await isKnownSite(ctx, target.siteId))) return 1;
  }
  const result = await retryPending(deps, target, {
    waitForOthersMs: WAIT_FOR_OTHERS_MS,
    onOutcome: (o) => printOutcome(o, ctx),
  });
  if (!result.ok) {
    ctx.err(withCode(result.message, result.code));
    return 1;
  }
  const { outcomes } = result;
  if (!outcomes.length) {
    ctx.out('Nothing pending to send.');
    return 0;
  }
  const count = (state: RetryOutcome['state']) => outcomes.filter((o) => o.state === state).length;
  const delivered = count('delivered');
  ctx.out(`Delivered ${delivered} of ${outcomes.length} pending deliver${outcomes.length === 1 ? 'y' : 'ies'}.`);
  if (delivered === outcomes.length) return 0;
  ctx.err(
    `${count('pending')} pending again, ${count('failed')} failed, ${count('superseded')} superseded, ${count('busy')} still held by another sender: see \`quire deliveries\`.`,
  );
  return 1;
}

function printOutcome(o: RetryOutcome, { out, err }: CliContext): void {
  const what = `${o.id}  ${o.siteId} ${o.event} ${o.slug}`;
  const a = o.attempt;
  const how = a
    ? `${a.status ?? '---'}  ${a.durationMs} ms${a.error ? `  ${attemptErrorText(a)}` : ''}${a.replyUrl ? `  → ${a.replyUrl}` : ''}`
    : o.state === 'busy'
      ? 'another sender is still sending it'
      : `${o.state} by another sender${o.lastError && o.state !== 'delivered' ? `: ${o.lastError}` : ''}`;
  const next =
    o.state === 'pending' && o.nextAttemptAt !== null
      ? `  (next attempt ${new Date(o.nextAttemptAt).toISOString()})`
      : '';
  const line = `  ${o.state === 'delivered' ? '✓' : '✗'} ${what}  ${how}${next}`;
  (o.state === 'delivered' ? out : err)(line);
}
