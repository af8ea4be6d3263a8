// Claims on SQLite: a claim leases a delivery that is due and unleased, unless another delivery of
// its slug is leased (one sender at a time per article), in one UPDATE … RETURNING; leases given
// back, and those of senders that died.
import { isDeadOwnerOnThisHost } from '../owners.ts';
import type { ClaimedDelivery } from '../records.ts';
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Bodies } from './outbox-bodies.ts';
import type { DueList } from './outbox-due.ts';
import type { Synchronous } from './serialized.ts';

type Claims = Pick<Synchronous<Outbox>, 'claim' | 'take' | 'takeMany' | 'takeDue' | 'release' | 'releaseDeadLeases'>;

export function createClaims(db: StateDb, bodies: Bodies, dueList: Pick<DueList, 'due'>): Claims {
  // Returns only what a sender needs: building the whole row into an object was much of a
  // claim's cost (docs/benchmarks-log.md, "2026-11-25: what changed, and why"). Positional, like
  // the attempt statements (outbox-attempts.ts): it runs for every delivery.
  // Due by now too: a sender holding a list of due ids made a moment ago must not send one that
  // another sender has meanwhile attempted and rescheduled (that would be an attempt too many).
  const claim = db.prepare<
    [number, string, string, number, number, number],
    { id: string; site_id: string; slug: string; event: string; attempts: number }
  >(
    `UPDATE deliveries SET lease_until = ?, lease_owner = ?
     WHERE id = ? AND state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
       AND NOT EXISTS (SELECT 1 FROM deliveries other WHERE other.site_id = deliveries.site_id
         AND other.slug = deliveries.slug AND other.id <> deliveries.id AND other.lease_until > ?)
     RETURNING id, site_id, slug, event, attempts`,
  );

  const claims: Claims = {
    claim(id: string, owner: string, now: number, leaseUntil: number): boolean {
      return claims.take(id, owner, now, leaseUntil) !== null;
    },

    // One statement: UPDATE … RETURNING.
    take(id: string, owner: string, now: number, leaseUntil: number): ClaimedDelivery | null {
      const row = claim.get(leaseUntil, owner, id, now, now, now);
      return row
        ? {
            id: row.id,
            siteId: row.site_id,
            slug: row.slug,
            event: row.event,
            attempts: row.attempts,
            body: bodies.bodyFor(row.id),
          }
        : null;
    },

    // One transaction for the lot: a claim is a committed write.
    takeMany(ids: string[], owner: string, now: number, leaseUntil: number): ClaimedDelivery[] {
      return db.transaction(() => ids.flatMap((id) => claims.take(id, owner, now, leaseUntil) ?? [])).immediate();
    },

    // One transaction: no other process writes between the list and the claims.
    takeDue(now: number, siteId: string | null, limit: number, owner: string, leaseUntil: number): ClaimedDelivery[] {
      return db.transaction(() => claims.takeMany(dueList.due(now, siteId, limit), owner, now, leaseUntil)).immediate();
    },

    release(ids: string[], owner: string): void {
      const free = db.prepare(
        'UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?',
      );
      db.transaction(() => ids.forEach((id) => free.run(id, owner))).immediate();
    },

    releaseDeadLeases(now: number): number {
      const held = db
        .prepare<[number], { lease_owner: string }>(
          'SELECT DISTINCT lease_owner FROM deliveries WHERE lease_until > ? AND lease_owner IS NOT NULL',
        )
        .all(now);
      let freed = 0;
      for (const { lease_owner: owner } of held) {
        if (!isDeadOwnerOnThisHost(owner)) continue;
        freed += db
          .prepare('UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = ?')
          .run(owner).changes;
      }
      // A dead sender's host slots too (they would be free at their lease's end anyway).
      for (const { owner } of db
        .prepare<[number], { owner: string }>(
          'SELECT DISTINCT owner FROM host_slots WHERE lease_until > ? AND owner IS NOT NULL',
        )
        .all(now)) {
        if (isDeadOwnerOnThisHost(owner))
          db.prepare('UPDATE host_slots SET owner = NULL, lease_until = 0 WHERE owner = ?').run(owner);
      }
      return freed;
    },
  };
  return claims;
}
