// Claims on PostgreSQL: a claim locks its candidate rows (FOR UPDATE SKIP LOCKED: a row another
// sender is claiming is passed over, never waited for), takes each one's slug lease
// (slug_leases), then writes the lease, all in one statement; leases given back, and those of
// senders that died.
import { isDeadOwnerOnThisHost } from '../owners.ts';
import type { ClaimedDelivery } from '../records.ts';
import type { Outbox } from '../state-interface.ts';
import { prepared, type Db, type Statements } from './connection.ts';
import { BY_KEY, IN_INDEX_ORDER, OLDER_PENDING_OF_SLUG, SLUG_LEASED } from './outbox-sql.ts';

type ClaimRow = { id: string; site_id: string; slug: string; event: string; attempts: number; body: Buffer | null };
const toClaimed = (r: ClaimRow): ClaimedDelivery => ({
  id: r.id,
  siteId: r.site_id,
  slug: r.slug,
  event: r.event,
  attempts: r.attempts,
  body: r.body ?? Buffer.alloc(0),
});

/**
 * A claim, as one statement (one round trip, its own transaction): lock the candidate deliveries
 * that are due and unleased, passing over rows another sender is claiming; take each one's slug
 * lease (the first per slug); lease the deliveries whose slug was won; return them with their
 * bodies. `candidates` gives id, site_id, slug and ord (the order to keep) and locks its rows;
 * $2 now, $3 owner, $4 lease until. Its results come in binary (the bodies as their bytes:
 * hex text doubled them on the wire and cost both sides a conversion).
 */
const claimStatement = (candidates: string) => `
  WITH candidates AS (${candidates}
  ), firsts AS (
    SELECT DISTINCT ON (site_id, slug) id, site_id, slug FROM candidates ORDER BY site_id, slug, ord
  ), won AS (
    INSERT INTO slug_leases (site_id, slug, delivery_id, owner, lease_until)
    SELECT site_id, slug, id, $3, $4 FROM firsts ORDER BY site_id, slug
    ON CONFLICT (site_id, slug) DO UPDATE SET delivery_id = excluded.delivery_id, owner = excluded.owner, lease_until = excluded.lease_until
      WHERE slug_leases.lease_until <= $2
    RETURNING delivery_id
  ), leased AS (
    UPDATE deliveries d SET lease_until = $4, lease_owner = $3 FROM won WHERE d.id = won.delivery_id
    RETURNING d.id, d.site_id, d.slug, d.event, d.attempts, d.next_attempt_at, d.created_at, d.seq
  )
  SELECT l.id, l.site_id, l.slug, l.event, l.attempts, b.body FROM leased l LEFT JOIN delivery_bodies b ON b.delivery_id = l.id
  ORDER BY l.next_attempt_at, l.created_at, l.seq`;

/**
 * The listed ones ($1 ids, in the caller's order). Due by now too: a sender holding a list of due
 * ids made a moment ago must not send one that another sender has meanwhile attempted and
 * rescheduled.
 */
const TAKE_MANY = prepared(
  'take_many',
  claimStatement(`
    SELECT d.id, d.site_id, d.slug, c.ord FROM unnest($1::text[]) WITH ORDINALITY AS c(id, ord)
    JOIN deliveries d ON d.id = c.id
    WHERE d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
      AND NOT EXISTS (${OLDER_PENDING_OF_SLUG('d')})
    FOR UPDATE OF d SKIP LOCKED`),
  { binary: true },
);

/** The first $5 due (as due(): an enabled webhook, the slug free, none older of it pending), of site $1 or of all. */
const dueCandidates = (site: string) => `
    SELECT d.id, d.site_id, d.slug, d.seq AS ord FROM deliveries d
    WHERE d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2) AND ${site}
      AND EXISTS (SELECT 1 FROM webhooks w WHERE w.site_id = d.site_id AND w.disabled_at IS NULL)
      AND NOT EXISTS (${SLUG_LEASED('d', '$2')})
      AND NOT EXISTS (${OLDER_PENDING_OF_SLUG('d')})
    ORDER BY d.next_attempt_at, d.created_at, d.seq LIMIT $5
    FOR UPDATE OF d SKIP LOCKED`;
const TAKE_DUE = prepared('take_due', claimStatement(dueCandidates('$1::text IS NULL')), { binary: true });
const TAKE_DUE_OF_SITE = prepared('take_due_of_site', claimStatement(dueCandidates('d.site_id = $1')), {
  binary: true,
});

type Claims = Pick<Outbox, 'claim' | 'take' | 'takeMany' | 'takeDue' | 'release' | 'releaseDeadLeases'>;

/** `claimsOn`: a connection whose session has IN_INDEX_ORDER set, for every site's claims (takeDue). */
export function createClaims(db: Db, claimsOn: Statements | null): Claims {
  const claims: Claims = {
    async claim(id, owner, now, leaseUntil) {
      return (await claims.takeMany([id], owner, now, leaseUntil)).length === 1;
    },

    async take(id, owner, now, leaseUntil) {
      return (await claims.takeMany([id], owner, now, leaseUntil))[0] ?? null;
    },

    async takeMany(ids, owner, now, leaseUntil) {
      if (!ids.length) return [];
      const rows = await db.atomically((tx) => tx.rows<ClaimRow>(TAKE_MANY, [ids, now, owner, leaseUntil]), BY_KEY);
      const order = new Map(ids.map((id, i) => [id, i]));
      rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
      return rows.map(toClaimed);
    },

    async takeDue(now, siteId, limit, owner, leaseUntil) {
      const values = [siteId, now, owner, leaseUntil, limit];
      // Every site's: in the due index's order, never a sort of all that is pending (IN_INDEX_ORDER).
      // One site's (publish): as the planner sees fit for that site.
      const rows =
        siteId !== null
          ? await db.rows<ClaimRow>(TAKE_DUE_OF_SITE, values)
          : claimsOn
            ? await claimsOn.rows<ClaimRow>(TAKE_DUE, values)
            : await db.atomically((tx) => tx.rows<ClaimRow>(TAKE_DUE, values), IN_INDEX_ORDER);
      return rows.map(toClaimed);
    },

    async release(ids, owner) {
      await db.atomically(async (tx) => {
        await tx.run('DELETE FROM slug_leases WHERE delivery_id = ANY($1::text[]) AND owner = $2', [ids, owner]);
        await tx.run(
          'UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2',
          [ids, owner],
        );
      });
    },

    async releaseDeadLeases(now) {
      const held = await db.rows<{ lease_owner: string }>(
        'SELECT DISTINCT lease_owner FROM deliveries WHERE lease_until > $1 AND lease_owner IS NOT NULL',
        [now],
      );
      let freed = 0;
      for (const { lease_owner: owner } of held) {
        if (!isDeadOwnerOnThisHost(owner)) continue;
        freed += await db.atomically(async (tx) => {
          await tx.run('DELETE FROM slug_leases WHERE owner = $1', [owner]);
          return tx.run('UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = $1', [owner]);
        });
      }
      // A dead sender's host slots too (they would be free at their lease's end anyway).
      for (const { owner } of await db.rows<{ owner: string }>(
        'SELECT DISTINCT owner FROM host_slots WHERE lease_until > $1 AND owner IS NOT NULL',
        [now],
      )) {
        if (isDeadOwnerOnThisHost(owner))
          await db.run('UPDATE host_slots SET owner = NULL, lease_until = 0 WHERE owner = $1', [owner]);
      }
      return freed;
    },
  };
  return claims;
}
