// The delivery outbox on PostgreSQL. What each operation means is the Outbox interface's
// (../state-interface.ts); the notes here are about how it holds across processes and machines:
// a claim locks its candidate rows (FOR UPDATE SKIP LOCKED: a row another sender is claiming is
// passed over, never waited for), takes each one's slug lease (slug_leases), then writes the
// lease, all in one transaction.
import { isDeadOwnerOnThisHost, newDeliveryId } from '../owners.ts';
import { attemptErrorText, type ClaimedDelivery, type DeliveryOrigin, type DeliveryState, type UndeliveredEntry } from '../records.ts';
import { statsQuery, toAttemptLogEntry, toDelivery, type AttemptRow, type DeliveryRow, type StatsRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import { prepared, type Db, type PlannerSettings, type Statements } from './connection.ts';
import { NOTIFY_DUE } from './due-watch.ts';


const COLUMNS = 'd.id, d.site_id, d.slug, d.event, d.origin, d.state, d.attempts, d.next_attempt_at, d.created_at, d.settled_at, d.last_status, d.last_error, d.reply_url, d.reply_id';
const withBody = (r: DeliveryRow & { body: Buffer | null }) => ({ ...toDelivery(r), body: r.body ?? Buffer.alloc(0) });

/**
 * One article's deliveries go in the order they were queued, whichever sender takes them: a
 * delivery waits while an older one of its slug is pending (a publish replaces the pending one
 * of its slug, so this holds back only redeliveries and retries behind each other).
 */
const OLDER_PENDING_OF_SLUG = (d: string) =>
  perRow(`SELECT 1 FROM deliveries o WHERE o.site_id = ${d}.site_id AND o.slug = ${d}.slug AND o.state = 'pending' AND o.seq < ${d}.seq`);

/** A live lease on the slug of `d` (one sender at a time per article), as of `at`. */
const SLUG_LEASED = (d: string, at: string) =>
  perRow(`SELECT 1 FROM slug_leases s WHERE s.site_id = ${d}.site_id AND s.slug = ${d}.slug AND s.lease_until > ${at}`);

/**
 * A correlated [NOT] EXISTS check kept a check made per row, an index probe on the row's site
 * and slug: OFFSET 0 stops the planner from turning it into an anti-join, which it planned from
 * statistics taken when no delivery was pending (a queue empties and refills between analyzes)
 * as a join that read every pending delivery for each candidate: with 20,000 pending, a claim of
 * 64 took 400 ms instead of 3, and the fleet's rate fell to a twentieth.
 */
function perRow(subquery: string): string {
  return `${subquery} OFFSET 0`;
}

/** Takes a slug's lease unless a live one is held; the rows that were taken come back. */
const TAKE_SLUGS = `
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
 * claim 64 by id, and sorted all of them to choose the first 500 due (40–140 ms instead of 2).
 * Claims go by primary key; the due list in the partial index's order. No JIT: a path these
 * settings rule out still counts in the plan's cost, which then passes jit_above_cost, and
 * compiling took 400 ms for a statement that runs in 3.
 */
const BY_KEY: PlannerSettings = { enable_hashjoin: 'off', enable_mergejoin: 'off', enable_bitmapscan: 'off', enable_seqscan: 'off', jit: 'off' };
export const IN_INDEX_ORDER: PlannerSettings = { ...BY_KEY, enable_sort: 'off' };

type ClaimRow = { id: string; site_id: string; slug: string; event: string; attempts: number; body: Buffer | null };
const toClaimed = (r: ClaimRow): ClaimedDelivery => ({ id: r.id, siteId: r.site_id, slug: r.slug, event: r.event, attempts: r.attempts, body: r.body ?? Buffer.alloc(0) });

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
const TAKE_MANY = prepared('take_many', claimStatement(`
    SELECT d.id, d.site_id, d.slug, c.ord FROM unnest($1::text[]) WITH ORDINALITY AS c(id, ord)
    JOIN deliveries d ON d.id = c.id
    WHERE d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
      AND NOT EXISTS (${OLDER_PENDING_OF_SLUG('d')})
    FOR UPDATE OF d SKIP LOCKED`), { binary: true });

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
const TAKE_DUE_OF_SITE = prepared('take_due_of_site', claimStatement(dueCandidates('d.site_id = $1')), { binary: true });

/**
 * Attempts recorded, as one statement: each attempt's row; the delivery's new state (the
 * verdict's, unless it was superseded meanwhile: it stays so), its lease and its slug's lease
 * given back. The ids are distinct.
 */
const RECORD_ATTEMPTS = prepared('record_attempts', `
  WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[])
      AS v(id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, error_text, state, next_at, at)
  ), attempt_rows AS (
    INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id)
    SELECT id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id FROM v
  ), settled AS (
    UPDATE deliveries d SET attempts = d.attempts + 1, last_status = v.status, last_error = v.error_text,
      reply_url = COALESCE(v.reply_url, d.reply_url), reply_id = COALESCE(v.reply_id, d.reply_id),
      state = CASE WHEN d.state = 'pending' THEN v.state ELSE d.state END,
      next_attempt_at = CASE WHEN d.state = 'pending' AND v.state = 'pending' THEN v.next_at ELSE NULL END,
      settled_at = CASE WHEN d.state = 'pending' AND v.state <> 'pending' THEN v.at ELSE d.settled_at END,
      lease_until = NULL, lease_owner = NULL
    FROM v WHERE d.id = v.id
  )
  DELETE FROM slug_leases WHERE delivery_id IN (SELECT id FROM v)`);

/** `claims`: a connection whose session has IN_INDEX_ORDER set, for every site's claims (takeDue). */
export function createOutbox(db: Db, claims: Statements | null = null): Outbox {
  const outbox: Outbox = {
    async get(id) {
      const [row] = await db.rows<DeliveryRow & { body: Buffer | null }>(`SELECT ${COLUMNS}, b.body FROM deliveries d LEFT JOIN delivery_bodies b ON b.delivery_id = d.id WHERE d.id = $1`, [id]);
      return row ? withBody(row) : null;
    },

    async pendingPublishFor(siteId, slug) {
      const [row] = await db.rows<DeliveryRow>(`SELECT ${COLUMNS} FROM deliveries d WHERE site_id = $1 AND slug = $2 AND state = 'pending' AND origin = 'publish' ORDER BY created_at DESC LIMIT 1`, [siteId, slug]);
      return row ? toDelivery(row) : null;
    },

    async enqueue(d, now, lease = null) {
      const id = newDeliveryId(now);
      await db.atomically(async (tx) => {
        if (d.origin === 'publish') {
          await tx.run(`UPDATE deliveries SET state = 'superseded', settled_at = $1, next_attempt_at = NULL WHERE site_id = $2 AND slug = $3 AND state = 'pending' AND origin = 'publish'`, [now, d.siteId, d.slug]);
        }
        await tx.run(
          `INSERT INTO deliveries (id, site_id, slug, event, origin, state, next_attempt_at, created_at, lease_owner, lease_until)
           VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6, $7, $8)`,
          [id, d.siteId, d.slug, d.event, d.origin, now, lease?.owner ?? null, lease?.until ?? null],
        );
        // Due at once for whichever sender looks: idle workers are woken (at commit).
        await tx.run(lease ? 'INSERT INTO delivery_bodies (delivery_id, body) VALUES ($1, $2)' : `INSERT INTO delivery_bodies (delivery_id, body) SELECT $1::text, $2::bytea FROM (${NOTIFY_DUE}) AS wake`, [id, d.body]);
        // Sent by its caller at once: its slug is taken too, if no other sender has it.
        if (lease) await tx.run(TAKE_SLUGS, [[d.siteId], [d.slug], [id], lease.owner, lease.until, now]);
      });
      return id;
    },

    async due(now, siteId = null, limit = 100) {
      // Every pending one, in sending order: the partial index's order, never a sort of them all.
      const query = (on: Db) => on.rows<{ id: string }>(
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

    async claim(id, owner, now, leaseUntil) {
      return (await outbox.takeMany([id], owner, now, leaseUntil)).length === 1;
    },

    async take(id, owner, now, leaseUntil) {
      return (await outbox.takeMany([id], owner, now, leaseUntil))[0] ?? null;
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
      const rows = siteId !== null ? await db.rows<ClaimRow>(TAKE_DUE_OF_SITE, values)
        : claims ? await claims.rows<ClaimRow>(TAKE_DUE, values)
        : await db.atomically((tx) => tx.rows<ClaimRow>(TAKE_DUE, values), IN_INDEX_ORDER);
      return rows.map(toClaimed);
    },

    async release(ids, owner) {
      await db.atomically(async (tx) => {
        await tx.run('DELETE FROM slug_leases WHERE delivery_id = ANY($1::text[]) AND owner = $2', [ids, owner]);
        await tx.run('UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2', [ids, owner]);
      });
    },

    async releaseDeadLeases(now) {
      const held = await db.rows<{ lease_owner: string }>('SELECT DISTINCT lease_owner FROM deliveries WHERE lease_until > $1 AND lease_owner IS NOT NULL', [now]);
      let freed = 0;
      for (const { lease_owner: owner } of held) {
        if (!isDeadOwnerOnThisHost(owner)) continue;
        freed += await db.atomically(async (tx) => {
          await tx.run('DELETE FROM slug_leases WHERE owner = $1', [owner]);
          return tx.run('UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = $1', [owner]);
        });
      }
      // A dead sender's host slots too (they would be free at their lease's end anyway).
      for (const { owner } of await db.rows<{ owner: string }>('SELECT DISTINCT owner FROM host_slots WHERE lease_until > $1 AND owner IS NOT NULL', [now])) {
        if (isDeadOwnerOnThisHost(owner)) await db.run('UPDATE host_slots SET owner = NULL, lease_until = 0 WHERE owner = $1', [owner]);
      }
      return freed;
    },

    recordAttempt(id, attempt, verdict, now) {
      return outbox.recordAttempts([{ id, attempt, verdict, now }]);
    },

    // One statement for the lot, whatever its size; a delivery listed twice is applied in order.
    async recordAttempts(records) {
      if (!records.length) return;
      const ids = new Set(records.map((r) => r.id));
      if (ids.size < records.length) {
        for (const r of records) await outbox.recordAttempts([r]);
        return;
      }
      const col = <T>(f: (r: (typeof records)[number]) => T) => records.map(f);
      await db.run(RECORD_ATTEMPTS, [
        col((r) => r.id), col((r) => r.attempt.url), col((r) => r.attempt.startedAt), col((r) => Math.round(r.attempt.durationMs)), col((r) => r.attempt.status),
        col((r) => r.attempt.error), col((r) => r.attempt.errorKind ?? null), col((r) => r.attempt.replyUrl), col((r) => r.attempt.replyId),
        col((r) => attemptErrorText(r.attempt)), col((r) => r.verdict.state), col((r) => (r.verdict.state === 'pending' ? r.verdict.nextAttemptAt : null)), col((r) => r.now),
      ]);
    },

    async unacknowledged(siteId) {
      const rows = await db.rows<DeliveryRow & { body: Buffer | null }>(
        `SELECT ${COLUMNS}, b.body FROM deliveries d LEFT JOIN delivery_bodies b ON b.delivery_id = d.id
         WHERE d.site_id = $1 AND d.state = 'failed' AND d.origin <> 'test'
           AND d.id = (SELECT o.id FROM deliveries o WHERE o.site_id = d.site_id AND o.slug = d.slug
             AND o.origin <> 'test' AND o.state <> 'superseded' ORDER BY o.created_at DESC, o.id DESC LIMIT 1)
         ORDER BY d.created_at, d.id`,
        [siteId],
      );
      return rows.map(withBody);
    },

    // Delivery ids are time-ordered (newDeliveryId), so `id >` means "created later".
    async undelivered(siteId, limit = 500) {
      const rows = await db.rows<{ id: string; slug: string; event: string; origin: DeliveryOrigin; settled_at: number | null; last_status: number | null; last_error: string | null }>(
        `SELECT d.id, d.slug, d.event, d.origin, d.settled_at, d.last_status, d.last_error FROM deliveries d
         WHERE d.site_id = $1 AND d.state = 'failed' AND d.origin <> 'test'
           AND NOT EXISTS (
             SELECT 1 FROM deliveries later
             WHERE later.site_id = d.site_id AND later.slug = d.slug AND later.origin <> 'test' AND later.id > d.id
               AND later.state IN ('delivered', 'failed'))
         ORDER BY d.id DESC LIMIT $2`,
        [siteId, limit],
      );
      return rows.map((r): UndeliveredEntry => ({ deliveryId: r.id, slug: r.slug, event: r.event, origin: r.origin, failedAt: r.settled_at, lastStatus: r.last_status, lastError: r.last_error }));
    },

    async supersede(id, now) {
      return (await db.run(`UPDATE deliveries SET state = 'superseded', settled_at = $1, next_attempt_at = NULL WHERE id = $2 AND state = 'pending'`, [now, id])) > 0;
    },

    // Made due now: idle workers are woken to send them.
    makeDue(siteId, now) {
      return db.atomically(async (tx) => {
        const n = await tx.run(`UPDATE deliveries SET next_attempt_at = $1 WHERE site_id = $2 AND state = 'pending' AND next_attempt_at > $1`, [now, siteId]);
        if (n) await tx.run(NOTIFY_DUE);
        return n;
      });
    },

    pendingMadeDue(siteId, now) {
      return db.atomically(async (tx) => {
        const rows = await tx.rows<{ id: string }>(`SELECT id FROM deliveries WHERE state = 'pending' AND ($1::text IS NULL OR site_id = $1) ORDER BY created_at, id`, [siteId]);
        await tx.run(`UPDATE deliveries SET next_attempt_at = $2 WHERE state = 'pending' AND ($1::text IS NULL OR site_id = $1) AND next_attempt_at > $2`, [siteId, now]);
        if (rows.length) await tx.run(NOTIFY_DUE);
        return rows.map((r) => r.id);
      });
    },

    async makeOneDue(id, now) {
      return db.atomically(async (tx) => {
        const made = (await tx.run(`UPDATE deliveries SET next_attempt_at = least(next_attempt_at, $1) WHERE id = $2 AND state = 'pending'`, [now, id])) === 1;
        if (made) await tx.run(NOTIFY_DUE);
        return made;
      });
    },

    async newerForSlug(d) {
      const [row] = await db.rows<DeliveryRow>(`SELECT ${COLUMNS} FROM deliveries d WHERE site_id = $1 AND slug = $2 AND id > $3 AND origin <> 'test' ORDER BY id DESC LIMIT 1`, [d.siteId, d.slug, d.id]);
      return row ? toDelivery(row) : null;
    },

    async latestReplyUrl(siteId, slug) {
      const [row] = await db.rows<{ reply_url: string }>(
        `SELECT reply_url FROM deliveries WHERE site_id = $1 AND slug = $2 AND reply_url IS NOT NULL ORDER BY settled_at DESC NULLS LAST, id DESC LIMIT 1`,
        [siteId, slug],
      );
      return row?.reply_url ?? null;
    },

    async pendingSummary() {
      const [row] = await db.rows<{ n: number; oldest: number | null }>(`SELECT count(*)::int AS n, min(created_at) AS oldest FROM deliveries WHERE state = 'pending'`);
      return { count: row?.n ?? 0, oldestCreatedAt: row?.oldest ?? null };
    },

    async counts(siteId = null) {
      const rows = await db.rows<{ state: DeliveryState; n: number }>(`SELECT state, count(*)::int AS n FROM deliveries WHERE ($1::text IS NULL OR site_id = $1) GROUP BY state`, [siteId]);
      const counts = { pending: 0, delivered: 0, failed: 0, superseded: 0 };
      for (const r of rows) counts[r.state] = r.n;
      return counts;
    },

    async stats(now, since) {
      const [r] = (await db.rows<StatsRow>(statsQuery('$1::bigint', '$2::bigint'), [now, since])) as [StatsRow];
      return { counts: await outbox.counts(), oldestPendingAt: r.oldest, inFlight: r.in_flight, senders: r.senders, attempts: { since, delivered: r.delivered, failed: r.failed } };
    },

    async list(opts = {}) {
      const states = opts.states ?? ['pending', 'delivered', 'failed', 'superseded'];
      const rows = await db.rows<DeliveryRow>(
        `SELECT ${COLUMNS} FROM deliveries d WHERE ($1::text IS NULL OR site_id = $1) AND state = ANY($2::text[])
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [opts.siteId ?? null, states, opts.limit ?? 100],
      );
      return rows.map(toDelivery);
    },

    async attemptLog(opts = {}) {
      const rows = await db.rows<AttemptRow>(
        `SELECT a.*, d.site_id, d.slug, d.event, d.origin, d.state AS delivery_state FROM attempts a
         JOIN deliveries d ON d.id = a.delivery_id
         WHERE ($1::text IS NULL OR d.site_id = $1) ORDER BY a.started_at DESC, a.id DESC LIMIT $2`,
        [opts.siteId ?? null, opts.limit ?? 200],
      );
      return rows.map(toAttemptLogEntry);
    },
  };
  return outbox;
}

