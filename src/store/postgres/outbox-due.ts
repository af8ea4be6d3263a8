// What is due on PostgreSQL: the due list in sending order, when the next one falls due, what is
// in flight, and deliveries made due now (idle workers are woken to send them: NOTIFY_DUE).
import type { Outbox } from '../state-interface.ts';
import type { Db } from './connection.ts';
import { NOTIFY_DUE } from './due-watch.ts';
import { IN_INDEX_ORDER, OLDER_PENDING_OF_SLUG, SLUG_LEASED } from './outbox-sql.ts';

type DueList = Pick<Outbox, 'due' | 'nextDueAt' | 'inFlight' | 'makeDue' | 'pendingMadeDue' | 'makeOneDue'>;

export function createDueList(db: Db): DueList {
  return {
    async due(now, siteId = null, limit = 100) {
      // Every pending one, in sending order: the partial index's order, never a sort of them all.
      const query = (on: Db) =>
        on.rows<{ id: string }>(
          `SELECT d.id FROM deliveries d JOIN webhooks w ON w.site_id = d.site_id AND w.disabled_at IS NULL
         WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
           AND ($2::text IS NULL OR d.site_id = $2)
           AND NOT EXISTS (${SLUG_LEASED('d', '$1')})
           AND NOT EXISTS (${OLDER_PENDING_OF_SLUG('d')})
         ORDER BY d.next_attempt_at, d.created_at, d.seq LIMIT $3`,
          [now, siteId, limit],
        );
      const rows = siteId === null ? await db.atomically(query, IN_INDEX_ORDER) : await query(db);
      return rows.map((r) => r.id);
    },

    async nextDueAt(siteId) {
      const [row] = await db.rows<{ at: number | null }>(
        `SELECT min(greatest(d.next_attempt_at, coalesce(d.lease_until, 0),
                  coalesce((SELECT s.lease_until FROM slug_leases s WHERE s.site_id = d.site_id AND s.slug = d.slug), 0))) AS at FROM deliveries d
         JOIN webhooks w ON w.site_id = d.site_id AND w.disabled_at IS NULL
         WHERE d.state = 'pending' AND ($1::text IS NULL OR d.site_id = $1) AND NOT EXISTS (${OLDER_PENDING_OF_SLUG('d')})`,
        [siteId],
      );
      return row?.at ?? null;
    },

    async inFlight(siteId, now) {
      const [row] = await db.rows<{ n: number }>(
        `SELECT count(*)::int AS n FROM deliveries WHERE state = 'pending' AND lease_until > $1 AND ($2::text IS NULL OR site_id = $2)`,
        [now, siteId],
      );
      return row?.n ?? 0;
    },

    // Made due now: idle workers are woken to send them.
    makeDue(siteId, now) {
      return db.atomically(async (tx) => {
        const n = await tx.run(
          `UPDATE deliveries SET next_attempt_at = $1 WHERE site_id = $2 AND state = 'pending' AND next_attempt_at > $1`,
          [now, siteId],
        );
        if (n) await tx.run(NOTIFY_DUE);
        return n;
      });
    },

    pendingMadeDue(siteId, now) {
      return db.atomically(async (tx) => {
        const rows = await tx.rows<{ id: string }>(
          `SELECT id FROM deliveries WHERE state = 'pending' AND ($1::text IS NULL OR site_id = $1) ORDER BY created_at, id`,
          [siteId],
        );
        await tx.run(
          `UPDATE deliveries SET next_attempt_at = $2 WHERE state = 'pending' AND ($1::text IS NULL OR site_id = $1) AND next_attempt_at > $2`,
          [siteId, now],
        );
        if (rows.length) await tx.run(NOTIFY_DUE);
        return rows.map((r) => r.id);
      });
    },

    async makeOneDue(id, now) {
      return db.atomically(async (tx) => {
        const made =
          (await tx.run(
            `UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $1) WHERE id = $2 AND state = 'pending'`,
            [now, id],
          )) === 1;
        if (made) await tx.run(NOTIFY_DUE);
        return made;
      });
    },
  };
}
