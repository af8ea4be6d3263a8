// A site's Deliveries tab: the attempt log with each delivery's live page check, what waits, what
// failed and what was delivered but is not right on the site; "Send pending now" (a few
// sent in the request, the rest made due for the worker) and Redeliver.
import type { Hono } from 'hono';
import { redeliver } from '../../delivery/redeliver.ts';
import { retryPending, type RetryOutcome } from '../../delivery/retry-now.ts';
import type { AdminEnv } from '../admin-deps.ts';
import type { AdminPages } from '../admin-pages.tsx';
import { createOneTimeFlash } from '../one-time-flash.ts';
import { DeliveriesTab } from '../views/site-deliveries.tsx';

/** The tab's forms, whose addresses opened with GET show the tab. */
export const DELIVERIES_FORMS = ['deliveries/:id/redeliver', 'deliveries/retry'] as const;

/** "Send pending now" sends this many in the request (4 at a time); the rest are made due for the worker. */
const SEND_NOW_AT_MOST = 40;

export function addDeliveriesTab(
  app: Hono<AdminEnv>,
  { deps, siteOf, notFound, flashOf, redirectWith }: AdminPages,
): void {
  // What "Send pending now" did, shown once on that site's tab.
  const retryFlash = createOneTimeFlash<{ siteId: string; outcomes: RetryOutcome[] }>();

  app.get('/sites/:site/deliveries', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const { outbox } = deps.publishing.store;
    const undelivered = (await deps.publishing.store.webhooks.get(site.id)) ? await outbox.undelivered(site.id) : [];
    const retried = retryFlash.take(c.get('session'), (f) => f.siteId === site.id)?.outcomes ?? null;
    const log = await outbox.attemptLog({ siteId: site.id, limit: 200 });
    const { pending } = await outbox.counts(site.id);
    const pageProblems = await deps.publishing.store.pageChecks.problems(site.id, 100);
    return c.html(
      <DeliveriesTab
        csrf={c.get('session').csrf}
        flash={flashOf(c)}
        site={site}
        log={log}
        pending={pending}
        undelivered={undelivered}
        pageProblems={pageProblems}
        retried={retried}
      />,
    );
  });

  app.post('/sites/:site/deliveries/retry', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const back = `/admin/sites/${site.id}/deliveries`;
    // The server's worker may hold some: not waited for here, it sends them itself.
    const result = await retryPending(
      deps.publishing,
      { siteId: site.id },
      { waitForOthersMs: 0, sendAtMost: SEND_NOW_AT_MOST },
    );
    if (!result.ok) return redirectWith(c, back, 'error', result.message);
    const { outcomes, leftDue } = result;
    if (leftDue || outcomes.some((o) => o.state === 'busy')) deps.wakeDeliveries?.();
    if (!outcomes.length) return redirectWith(c, back, 'ok', 'Nothing was pending.');
    retryFlash.put(c.get('session'), { siteId: site.id, outcomes });
    const delivered = outcomes.filter((o) => o.state === 'delivered').length;
    const rest = leftDue ? ` The other ${leftDue} are due now and go out from the server in the next seconds.` : '';
    return redirectWith(
      c,
      `${back}#retry-result`,
      delivered === outcomes.length ? 'ok' : 'error',
      `Sent ${outcomes.length} pending: ${delivered} delivered.${rest}`,
    );
  });

  app.post('/sites/:site/deliveries/:id/redeliver', async (c) => {
    const site = siteOf(c);
    if (!site) return notFound(c);
    const result = await redeliver(deps.publishing, c.req.param('id'), site.id);
    const back = `/admin/sites/${site.id}/deliveries`;
    if (!result.sent) {
      if (result.code === 'BUSY') deps.wakeDeliveries?.();
      return redirectWith(c, back, 'error', result.message);
    }
    return redirectWith(
      c,
      back,
      result.explanation.ok ? 'ok' : 'error',
      `Redelivered (${result.deliveryId}): ${result.explanation.message}`,
    );
  });
}
