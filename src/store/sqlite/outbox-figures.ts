// The outbox's figures on SQLite: what is pending, the count of each state, and the senders' view
// of it (`quire deliveries --stats`, a worker's health line).
import type { DeliveryState, DeliveryStats } from '../records.ts';
import { statsQuery, type StatsRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

type Figures = Pick<Synchronous<Outbox>, 'pendingSummary' | 'counts' | 'stats'>;

export function createFigures(db: StateDb): Figures {
  const pendingSummary = db.prepare<[], { n: number; oldest: number | null }>(
    `SELECT count(*) AS n, min(created_at) AS oldest FROM deliveries WHERE state = 'pending'`,
  );

  const figures: Figures = {
    pendingSummary(): { count: number; oldestCreatedAt: number | null } {
      const row = pendingSummary.get();
      return { count: row?.n ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },

    counts(siteId: string | null = null): Record<DeliveryState, number> {
      const rows = db
        .prepare<{ site: string | null }, { state: DeliveryState; n: number }>(
          `SELECT state, count(*) AS n FROM deliveries WHERE (@site IS NULL OR site_id = @site) GROUP BY state`,
        )
        .all({ site: siteId });
      const counts = { pending: 0, delivered: 0, failed: 0, superseded: 0 };
      for (const r of rows) counts[r.state] = r.n;
      return counts;
    },

    stats(now: number, since: number): DeliveryStats {
      const r = db.prepare<{ now: number; since: number }, StatsRow>(statsQuery('@now', '@since')).get({ now, since })!;
      return {
        counts: figures.counts(),
        oldestPendingAt: r.oldest,
        inFlight: r.in_flight,
        senders: r.senders,
        attempts: { since, delivered: r.delivered, failed: r.failed },
      };
    },
  };
  return figures;
}
