// Page checks on PostgreSQL (see the PageChecks interface). A claim locks the first due check of
// each site (FOR UPDATE SKIP LOCKED: one another verifier is claiming is passed over), takes its
// site's row in page_check_sites (an upsert: of two verifiers claiming one site at once, one
// wins), then leases the checks whose site was won, all in one statement: each check is made
// once across the fleet, and one site is checked by one verifier at a time.
import type { NewDelivery } from '../records.ts';
import type { VerificationCounts } from '../page-check-records.ts';
import {
  claimedPageCheckOf,
  type ClaimRow,
  droppedMessage,
  PAGE_CHECK_COLUMNS,
  SHOWN_STATES,
  verificationOf,
  type PageCheckColumns,
} from '../page-check-rows.ts';
import type { PageChecks } from '../state-interface.ts';
import type { Db } from './connection.ts';

/** Queues a delivery's page check with it; call in the transaction that inserts the delivery. */
export async function queuePageCheck(tx: Db, id: string, d: NewDelivery): Promise<void> {
  const check = d.pageCheck ?? null;
  if (check === null) return;
  await tx.run(
    'INSERT INTO page_checks (delivery_id, site_id, slug, state, plan, delay_ms) VALUES ($1, $2, $3, $4, $5, $6)',
    check === 'off'
      ? [id, d.siteId, d.slug, 'off', null, 0]
      : [id, d.siteId, d.slug, 'awaiting', JSON.stringify(check), check.delayMs],
  );
}

/**
 * What recording attempts does to page checks, as common table expressions over its `v` (the
 * attempts) read before its own update of the deliveries: a delivery now acknowledged ends the
 * checks still to come of older deliveries of its article (their page is gone), and makes its own
 * check due after its delay.
 */
export const ACKNOWLEDGED_CHECKS = `
  , ended_checks AS (
    UPDATE page_checks o SET due_at = NULL, state = CASE WHEN o.state = 'pending' THEN 'superseded' ELSE o.state END
    FROM v JOIN deliveries d ON d.id = v.id
    WHERE v.state = 'delivered' AND d.state = 'pending' AND o.site_id = d.site_id AND o.slug = d.slug
      AND o.due_at IS NOT NULL AND o.delivery_id <> d.id
  ), due_checks AS (
    UPDATE page_checks p SET state = 'pending', due_at = v.at + p.delay_ms
    FROM v JOIN deliveries d ON d.id = v.id
    WHERE p.delivery_id = v.id AND v.state = 'delivered' AND d.state = 'pending' AND p.state = 'awaiting'
  )`;

const TAKE = `
  WITH firsts AS (
    SELECT DISTINCT ON (p.site_id) p.delivery_id, p.site_id, p.due_at FROM page_checks p
    WHERE p.due_at IS NOT NULL AND p.due_at <= $1
      AND NOT EXISTS (SELECT 1 FROM page_check_sites s WHERE s.site_id = p.site_id AND s.lease_until > $1)
    ORDER BY p.site_id, p.due_at, p.delivery_id
  ), candidates AS (
    SELECT p.delivery_id, p.site_id FROM page_checks p JOIN firsts f ON f.delivery_id = p.delivery_id
    WHERE p.due_at IS NOT NULL AND p.due_at <= $1 AND (p.lease_until IS NULL OR p.lease_until <= $1)
    ORDER BY f.due_at, f.delivery_id LIMIT $2
    FOR UPDATE OF p SKIP LOCKED
  ), won AS (
    INSERT INTO page_check_sites (site_id, owner, lease_until)
    SELECT site_id, $3, $4 FROM candidates ORDER BY site_id
    ON CONFLICT (site_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
      WHERE page_check_sites.lease_until <= $1
    RETURNING site_id
  ), leased AS (
    UPDATE page_checks p SET lease_owner = $3, lease_until = $4 FROM candidates c JOIN won w ON w.site_id = c.site_id
    WHERE p.delivery_id = c.delivery_id
    RETURNING p.delivery_id, p.site_id, p.slug, p.plan, p.tries, p.due_at
  )
  SELECT l.delivery_id, l.site_id, l.slug, l.plan, l.tries, d.event, d.reply_url, b.body FROM leased l
  JOIN deliveries d ON d.id = l.delivery_id LEFT JOIN delivery_bodies b ON b.delivery_id = l.delivery_id
  ORDER BY l.due_at, l.delivery_id`;

const shown = SHOWN_STATES.map((s) => `'${s}'`).join(', ');

export function createPageChecks(db: Db): PageChecks {
  return {
    async take(now, limit, owner, leaseUntil) {
      const rows = await db.rows<ClaimRow>(TAKE, [now, limit, owner, leaseUntil]);
      return rows.map(claimedPageCheckOf);
    },

    // A check that was dropped or ended while it ran keeps what it found, and no more are to come.
    async record(deliveryId, owner, result) {
      await db.run(
        `WITH done AS (
           UPDATE page_checks SET state = $3, code = $4, message = $5, fix = $6, url = $7, checks = $8, checked_at = $9,
             due_at = CASE WHEN due_at IS NULL THEN NULL ELSE $10::bigint END, tries = tries + 1,
             lease_owner = NULL, lease_until = NULL
           WHERE delivery_id = $1 AND lease_owner = $2 RETURNING site_id)
         DELETE FROM page_check_sites s USING done WHERE s.site_id = done.site_id AND s.owner = $2`,
        [
          deliveryId,
          owner,
          result.state,
          result.code,
          result.message,
          result.fix,
          result.url,
          JSON.stringify(result.checks),
          result.checkedAt,
          result.nextCheckAt,
        ],
      );
    },

    async release(deliveryIds, owner) {
      await db.run(
        `WITH freed AS (
           UPDATE page_checks SET lease_owner = NULL, lease_until = NULL
           WHERE delivery_id = ANY($1::text[]) AND lease_owner = $2 RETURNING site_id)
         DELETE FROM page_check_sites s USING freed WHERE s.site_id = freed.site_id AND s.owner = $2`,
        [deliveryIds, owner],
      );
    },

    // Newest deliveries first: those beyond `cap` in their site are the oldest.
    async dropOverCap(cap, now) {
      const rows = await db.rows<{ site_id: string; n: number }>(
        `WITH dropped AS (
           UPDATE page_checks p SET due_at = NULL,
             code = CASE WHEN p.state = 'pending' THEN 'PAGE_CHECKS_DROPPED' ELSE p.code END,
             message = CASE WHEN p.state = 'pending' THEN $3 ELSE p.message END,
             checked_at = CASE WHEN p.state = 'pending' THEN $2 ELSE p.checked_at END,
             state = CASE WHEN p.state = 'pending' THEN 'unverified' ELSE p.state END
           FROM (SELECT delivery_id, lease_until, row_number() OVER (PARTITION BY site_id ORDER BY delivery_id DESC) AS n
                 FROM page_checks WHERE due_at IS NOT NULL) r
           WHERE p.delivery_id = r.delivery_id AND r.n > $1 AND (r.lease_until IS NULL OR r.lease_until <= $2)
           RETURNING p.site_id)
         SELECT site_id, count(*)::int AS n FROM dropped GROUP BY site_id`,
        [cap, now, droppedMessage(cap)],
      );
      return rows.map((r) => ({ siteId: r.site_id, dropped: r.n }));
    },

    async problems(siteId, limit = 500) {
      const rows = await db.rows<
        PageCheckColumns & { delivery_id: string; slug: string; event: string; settled_at: number | null }
      >(
        `SELECT pc.delivery_id, pc.slug, d.event, d.settled_at, ${PAGE_CHECK_COLUMNS} FROM page_checks pc
         JOIN deliveries d ON d.id = pc.delivery_id
         WHERE pc.site_id = $1 AND pc.state IN ('render_problem', 'unverified')
           AND NOT EXISTS (SELECT 1 FROM page_checks later WHERE later.site_id = pc.site_id AND later.slug = pc.slug
             AND later.delivery_id > pc.delivery_id AND later.state IN (${shown}))
         ORDER BY pc.delivery_id DESC LIMIT $2`,
        [siteId, limit],
      );
      return rows.map((r) => ({
        deliveryId: r.delivery_id,
        slug: r.slug,
        event: r.event,
        deliveredAt: r.settled_at,
        verification: verificationOf(r, 'delivered')!,
      }));
    },

    async counts(siteId = null) {
      const out: VerificationCounts = { pending: 0, live: 0, render_problem: 0, unverified: 0, off: 0 };
      const rows = await db.rows<{ state: keyof VerificationCounts; n: number }>(
        `SELECT state, count(*)::int AS n FROM page_checks WHERE ($1::text IS NULL OR site_id = $1)
           AND state IN (${shown}) GROUP BY state`,
        [siteId],
      );
      for (const r of rows) out[r.state] = r.n;
      return out;
    },
  };
}
