// What is due on SQLite: the due list in sending order, when the next one falls due, what is in
// flight, and deliveries made due now.
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export type DueList = Pick<
  Synchronous<Outbox>,
  'due' | 'nextDueAt' | 'inFlight' | 'makeDue' | 'pendingMadeDue' | 'makeOneDue'
>;

export function createDueList(db: StateDb): DueList {
  const due = db.prepare<{ now: number; site: string | null; limit: number }, { id: string }>(
    `SELECT d.id FROM deliveries d JOIN webhooks w ON w.site_id = d.site_id AND w.disabled_at IS NULL
     WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.lease_until IS NULL OR d.lease_until <= @now)
       AND (@site IS NULL OR d.site_id = @site)
     ORDER BY d.next_attempt_at, d.created_at LIMIT @limit`,
  );
  // The later of a delivery's next time and its lease's end: a leased one is not due before.
  const nextDue = db.prepare<{ site: string | null }, { at: number | null }>(
    `SELECT min(max(d.next_attempt_at, coalesce(d.lease_until, 0))) AS at FROM deliveries d
     JOIN webhooks w ON w.site_id = d.site_id AND w.disabled_at IS NULL
     WHERE d.state = 'pending' AND (@site IS NULL OR d.site_id = @site)`,
  );
  const held = db.prepare<{ site: string | null; now: number }, { n: number }>(
    `SELECT count(*) AS n FROM deliveries WHERE state = 'pending' AND lease_until > @now AND (@site IS NULL OR site_id = @site)`,
  );

  return {
    due(now: number, siteId: string | null = null, limit = 100): string[] {
      return due.all({ now, site: siteId, limit }).map((r) => r.id);
    },

    nextDueAt(siteId: string | null): number | null {
      return nextDue.get({ site: siteId })?.at ?? null;
    },

    inFlight(siteId: string | null, now: number): number {
      return held.get({ site: siteId, now })!.n;
    },

    makeDue(siteId: string, now: number): number {
      return db
        .prepare(
          `UPDATE deliveries SET next_attempt_at = ? WHERE site_id = ? AND state = 'pending' AND next_attempt_at > ?`,
        )
        .run(now, siteId, now).changes;
    },

    pendingMadeDue(siteId: string | null, now: number): string[] {
      return db
        .transaction(() => {
          const ids = db
            .prepare<{ site: string | null }, { id: string }>(
              `SELECT id FROM deliveries WHERE state = 'pending' AND (@site IS NULL OR site_id = @site) ORDER BY created_at, id`,
            )
            .all({ site: siteId })
            .map((r) => r.id);
          db.prepare(
            `UPDATE deliveries SET next_attempt_at = @now WHERE state = 'pending' AND (@site IS NULL OR site_id = @site) AND next_attempt_at > @now`,
          ).run({ site: siteId, now });
          return ids;
        })
        .immediate();
    },

    makeOneDue(id: string, now: number): boolean {
      return (
        db
          .prepare(`UPDATE deliveries SET next_attempt_at = min(next_attempt_at, ?) WHERE id = ? AND state = 'pending'`)
          .run(now, id).changes === 1
      );
    },
  };
}
