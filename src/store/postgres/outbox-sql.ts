// What the PostgreSQL outbox's pieces share: the per-row checks of a delivery's slug, taking a
// slug's lease, the planner settings claims and the due list run under, and a delivery's columns.
import { pageCheckRequestOf, type PageCheckColumns } from '../page-check-rows.ts';
import type { DeliveryRow } from '../rows.ts';
import { toDelivery } from '../rows.ts';
import type { PlannerSettings } from './connection.ts';

export const COLUMNS =
  'd.id, d.site_id, d.slug, d.event, d.origin, d.state, d.attempts, d.next_attempt_at, d.created_at, d.settled_at, d.last_status, d.last_error, d.reply_url, d.reply_id';
/** A delivery read with its body and the state and plan of its page check (`pc_state`, `pc_plan`). */
export const withBody = (
  r: DeliveryRow & { body: Buffer | null } & Pick<PageCheckColumns, 'pc_state' | 'pc_plan'>,
) => ({
  ...toDelivery(r),
  body: r.body ?? Buffer.alloc(0),
  pageCheck: pageCheckRequestOf(r),
});

/**
 * One article's deliveries go in the order they were queued, whichever sender takes them: a
 * delivery waits while an older one of its slug is pending (a publish replaces the pending one
 * of its slug, so this holds back only redeliveries and retries behind each other).
 */
export const OLDER_PENDING_OF_SLUG = (d: string) =>
  perRow(
    `SELECT 1 FROM deliveries o WHERE o.site_id = ${d}.site_id AND o.slug = ${d}.slug AND o.state = 'pending' AND o.seq < ${d}.seq`,
  );

/** A live lease on the slug of `d` (one sender at a time per article), as of `at`. */
export const SLUG_LEASED = (d: string, at: string) =>
  perRow(`SELECT 1 FROM slug_leases s WHERE s.site_id = ${d}.site_id AND s.slug = ${d}.slug AND s.lease_until > ${at}`);

/**
 * A correlated [NOT] EXISTS check kept a check made per row, an index probe on the row's site
 * and slug: OFFSET 0 stops the planner from turning it into an anti-join, which it planned from
 * statistics taken when no delivery was pending (a queue empties and refills between analyzes)
 * as a join that read every pending delivery for each candidate, and claims slowed the fleet to
 * a crawl (docs/benchmarks-log.md, "a claim plan that stale statistics broke").
 */
function perRow(subquery: string): string {
  return `${subquery} OFFSET 0`;
}

/** Takes a slug's lease unless a live one is held; the rows that were taken come back. */
export const TAKE_SLUGS = `
  INSERT INTO slug_leases (site_id, slug, delivery_id, owner, lease_until)
  SELECT c.site_id, c.slug, c.delivery_id, $4, $5 FROM unnest($1::text[], $2::text[], $3::text[]) AS c(site_id, slug, delivery_id)
  ORDER BY c.site_id, c.slug
  ON CONFLICT (site_id, slug) DO UPDATE SET delivery_id = excluded.delivery_id, owner = excluded.owner, lease_until = excluded.lease_until
    WHERE slug_leases.lease_until <= $6
  RETURNING delivery_id`;

/**
 * Plans that must not depend on fresh statistics. A burst of deliveries into a table whose
 * statistics predate it (the autovacuum daemon analyzes it a minute later, at best) made the
 * planner take thousands of pending rows for a handful: it hashed every pending delivery to
 * claim 64 by id, and sorted all of them to choose the first 500 due. Claims go by primary key;
 * the due list in the partial index's order. No JIT: a path these settings rule out still counts
 * in the plan's cost, which then passes jit_above_cost, and compiling took far longer than the
 * statement runs (docs/benchmarks-log.md, "2026-11-26: delivery fleet on PostgreSQL").
 */
export const BY_KEY: PlannerSettings = {
  enable_hashjoin: 'off',
  enable_mergejoin: 'off',
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
  jit: 'off',
};
export const IN_INDEX_ORDER: PlannerSettings = { ...BY_KEY, enable_sort: 'off' };
