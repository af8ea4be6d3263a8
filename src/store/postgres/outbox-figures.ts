// The outbox's figures on PostgreSQL: what is pending, the count of each state, and the fleet's
// view of it (`quire deliveries --stats`, a worker's health line).
import type { DeliveryState } from '../records.ts';
import { statsQuery, type StatsRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { Db } from './connection.ts';

type Figures = Pick<Outbox, 'pendingSummary' | 'counts' | 'stats'>;

export function createFigures(db: Db): Figures {
  const figures: Figures = {
    async pendingSummary() {
      const [row] = await db.rows<{ n: number; oldest: number | null }>(
        `SELECT count(*)::int AS n, min(created_at) AS oldest FROM deliveries WHERE state = 'pending'`,
      );
      return { count: row?.n ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },

    async counts(siteId = null) {
      const rows = await db.rows<{ state: DeliveryState; n: number }>(
        `SELECT state, count(*)::int AS n FROM deliveries WHERE ($1::text IS NULL OR site_id = $1) GROUP BY state`,
        [siteId],
      );
      const counts = { pending: 0, delivered: 0, failed: 0, superseded: 0 };
      for (const r of rows) counts[r.state] = r.n;
      return counts;
    },

    async stats(now, since) {
      const [r] = (await db.rows<StatsRow>(statsQuery('$1::bigint', '$2::bigint'), [now, since])) as [StatsRow];
      return {
        counts: await figures.counts(),
        oldestPendingAt: r.oldest,
        inFlight: r.in_flight,
        senders: r.senders,
        attempts: { since, delivered: r.delivered, failed: r.failed },
      };
    },
  };
  return figures;
}
