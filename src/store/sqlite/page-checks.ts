// Page checks on SQLite (see the PageChecks interface): written with their delivery, due once it
// is acknowledged, claimed by verifiers with leases. Every claim is one IMMEDIATE transaction, so
// two processes never take the same check, nor two of one site.
import type { NewDelivery } from '../records.ts';
import type { ClaimedPageCheck, PageCheckResult, VerificationCounts } from '../page-check-records.ts';
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
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

/** What the outbox's own writes do to page checks: a delivery's check queued with it, and made due when it is acknowledged. */
export interface PageCheckWrites {
  queue(id: string, d: NewDelivery): void;
  /** Call in the transaction that records the delivery as acknowledged. */
  acknowledged(id: string, now: number): void;
}

export function createPageCheckWrites(db: StateDb): PageCheckWrites {
  const insert = db.prepare<[string, string, string, string, string | null, number]>(
    'INSERT INTO page_checks (delivery_id, site_id, slug, state, plan, delay_ms) VALUES (?, ?, ?, ?, ?, ?)',
  );
  // Only when the delivery is now delivered (not superseded meanwhile).
  const due = db.prepare<{ now: number; id: string }>(
    `UPDATE page_checks SET state = 'pending', due_at = @now + delay_ms
     WHERE delivery_id = @id AND state = 'awaiting' AND EXISTS (SELECT 1 FROM deliveries WHERE id = @id AND state = 'delivered')`,
  );
  // The page the article's earlier acknowledged deliveries were to be checked against is gone:
  // their checks end. (Any other waiting check of the article is one: it fell due at its own
  // acknowledgment. Ids are not compared: two queued in one millisecond are in random order.)
  const endOlder = db.prepare<{ id: string }>(
    `UPDATE page_checks SET due_at = NULL, state = CASE WHEN state = 'pending' THEN 'superseded' ELSE state END
     WHERE (site_id, slug) = (SELECT site_id, slug FROM deliveries WHERE id = @id AND state = 'delivered')
       AND due_at IS NOT NULL AND delivery_id <> @id`,
  );
  return {
    queue(id, d) {
      const check = d.pageCheck ?? null;
      if (check === null) return;
      if (check === 'off') insert.run(id, d.siteId, d.slug, 'off', null, 0);
      else insert.run(id, d.siteId, d.slug, 'awaiting', JSON.stringify(check), check.delayMs);
    },
    acknowledged(id, now) {
      endOlder.run({ id });
      due.run({ now, id });
    },
  };
}

export function createPageChecks(db: StateDb): Synchronous<PageChecks> {
  // The first due check of each site with none leased, the earliest due sites first.
  const claim = db.prepare<{ now: number; limit: number; owner: string; until: number }, { delivery_id: string }>(
    `UPDATE page_checks SET lease_owner = @owner, lease_until = @until
     WHERE delivery_id IN (
       SELECT (SELECT f.delivery_id FROM page_checks f WHERE f.site_id = s.site_id AND f.due_at <= @now
               ORDER BY f.due_at, f.delivery_id LIMIT 1)
       FROM (SELECT site_id, min(due_at) AS first FROM page_checks WHERE due_at IS NOT NULL AND due_at <= @now GROUP BY site_id) s
       WHERE NOT EXISTS (SELECT 1 FROM page_checks l WHERE l.site_id = s.site_id AND l.lease_until IS NOT NULL AND l.lease_until > @now)
       ORDER BY s.first LIMIT @limit)
     RETURNING delivery_id`,
  );
  const claimed = db.prepare<[string], ClaimRow>(
    `SELECT p.delivery_id, p.site_id, p.slug, p.plan, p.tries, d.event, d.reply_url, b.body FROM page_checks p
     JOIN deliveries d ON d.id = p.delivery_id LEFT JOIN delivery_bodies b ON b.delivery_id = p.delivery_id
     WHERE p.delivery_id = ?`,
  );
  // A check that was dropped or ended while it ran keeps what it found, and no more are to come.
  const record = db.prepare(
    `UPDATE page_checks SET state = @state, code = @code, message = @message, fix = @fix, url = @url, checks = @checks,
       checked_at = @checkedAt, due_at = CASE WHEN due_at IS NULL THEN NULL ELSE @next END, tries = tries + 1,
       lease_owner = NULL, lease_until = NULL
     WHERE delivery_id = @id AND lease_owner = @owner`,
  );
  const release = db.prepare<[string, string]>(
    'UPDATE page_checks SET lease_owner = NULL, lease_until = NULL WHERE delivery_id = ? AND lease_owner = ?',
  );
  // Newest deliveries first: those beyond `cap` in their site are the oldest.
  const drop = db.prepare<{ cap: number; now: number; message: string }, { site_id: string }>(
    `UPDATE page_checks SET due_at = NULL,
       code = CASE WHEN state = 'pending' THEN 'PAGE_CHECKS_DROPPED' ELSE code END,
       message = CASE WHEN state = 'pending' THEN @message ELSE message END,
       checked_at = CASE WHEN state = 'pending' THEN @now ELSE checked_at END,
       state = CASE WHEN state = 'pending' THEN 'unverified' ELSE state END
     WHERE delivery_id IN (
       SELECT delivery_id FROM (
         SELECT delivery_id, lease_until, row_number() OVER (PARTITION BY site_id ORDER BY delivery_id DESC) AS n
         FROM page_checks WHERE due_at IS NOT NULL)
       WHERE n > @cap AND (lease_until IS NULL OR lease_until <= @now))
     RETURNING site_id`,
  );
  const problems = db.prepare<
    { site: string; limit: number },
    PageCheckColumns & { delivery_id: string; slug: string; event: string; settled_at: number | null }
  >(
    `SELECT pc.delivery_id, pc.slug, d.event, d.settled_at, ${PAGE_CHECK_COLUMNS} FROM page_checks pc
     JOIN deliveries d ON d.id = pc.delivery_id
     WHERE pc.site_id = @site AND pc.state IN ('render_problem', 'unverified')
       AND NOT EXISTS (SELECT 1 FROM page_checks later WHERE later.site_id = pc.site_id AND later.slug = pc.slug
         AND later.delivery_id > pc.delivery_id AND later.state IN (${SHOWN_STATES.map((s) => `'${s}'`).join(', ')}))
     ORDER BY pc.delivery_id DESC LIMIT @limit`,
  );
  const counts = db.prepare<{ site: string | null }, { state: keyof VerificationCounts; n: number }>(
    `SELECT state, count(*) AS n FROM page_checks WHERE (@site IS NULL OR site_id = @site)
       AND state IN (${SHOWN_STATES.map((s) => `'${s}'`).join(', ')}) GROUP BY state`,
  );

  return {
    take(now, limit, owner, leaseUntil): ClaimedPageCheck[] {
      return db
        .transaction(() =>
          claim
            .all({ now, limit, owner, until: leaseUntil })
            .map(({ delivery_id }) => claimed.get(delivery_id)!)
            .map(claimedPageCheckOf),
        )
        .immediate();
    },

    record(deliveryId: string, owner: string, result: PageCheckResult): void {
      record.run({
        id: deliveryId,
        owner,
        state: result.state,
        code: result.code,
        message: result.message,
        fix: result.fix,
        url: result.url,
        checks: JSON.stringify(result.checks),
        checkedAt: result.checkedAt,
        next: result.nextCheckAt,
      });
    },

    release(deliveryIds: string[], owner: string): void {
      db.transaction(() => deliveryIds.forEach((id) => release.run(id, owner))).immediate();
    },

    dropOverCap(cap: number, now: number): { siteId: string; dropped: number }[] {
      const rows = drop.all({ cap, now, message: droppedMessage(cap) });
      const bySite = new Map<string, number>();
      for (const r of rows) bySite.set(r.site_id, (bySite.get(r.site_id) ?? 0) + 1);
      return [...bySite].map(([siteId, dropped]) => ({ siteId, dropped }));
    },

    problems(siteId: string, limit = 500) {
      return problems.all({ site: siteId, limit }).map((r) => ({
        deliveryId: r.delivery_id,
        slug: r.slug,
        event: r.event,
        deliveredAt: r.settled_at,
        verification: verificationOf(r, 'delivered')!,
      }));
    },

    counts(siteId: string | null = null): VerificationCounts {
      const out: VerificationCounts = { pending: 0, live: 0, render_problem: 0, unverified: 0, off: 0 };
      for (const r of counts.all({ site: siteId })) out[r.state] = r.n;
      return out;
    },
  };
}
