// The delivery outbox on SQLite. What each operation means is the Outbox interface's
// (../state-interface.ts); the notes here are about how: statements prepared once, positional
// parameters where they run per delivery, bodies in their own table. Every transaction that
// writes is IMMEDIATE: one that read first could not wait for another process's write lock
// (SQLite answers SQLITE_BUSY at once), and publish, servers and workers share the file.
import { isDeadOwnerOnThisHost, newDeliveryId } from '../owners.ts';
import {
  attemptErrorText,
  type AttemptLogEntry,
  type AttemptRecord,
  type AttemptVerdict,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryState,
  type DeliveryStats,
  type DeliveryWithBody,
  type NewDelivery,
  type UndeliveredEntry,
} from '../records.ts';
import {
  statsQuery,
  toAttemptLogEntry,
  toDelivery,
  type AttemptRow,
  type DeliveryRow,
  type StatsRow,
} from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { Synchronous } from './serialized.ts';
import type { StateDb } from './database.ts';
import { listUndelivered } from './undelivered.ts';

/**
 * Bodies this process queued, until they are claimed: `publish` queues its events and sends them
 * at once, and reading each body back out of SQLite cost as much as a fifth of a delivery's
 * local work. Bounded in bytes (oldest dropped first); a body not held here is read from the
 * database. A delivery's body never changes once queued, so the two always agree; the caller
 * hands the buffer over at enqueue and must not change it.
 */
class QueuedBodies {
  private readonly bodies = new Map<string, Buffer>();
  private bytes = 0;
  add(id: string, body: Buffer): void {
    if (body.length > MAX_QUEUED_BODY_BYTES / 4) return;
    this.bodies.set(id, body);
    this.bytes += body.length;
    for (const [oldest, b] of this.bodies) {
      if (this.bytes <= MAX_QUEUED_BODY_BYTES) break;
      this.bodies.delete(oldest);
      this.bytes -= b.length;
    }
  }
  take(id: string): Buffer | undefined {
    const body = this.bodies.get(id);
    if (body) {
      this.bodies.delete(id);
      this.bytes -= body.length;
    }
    return body;
  }
}
const MAX_QUEUED_BODY_BYTES = 32 * 1024 * 1024;

export function createOutbox(db: StateDb): Synchronous<Outbox> {
  const byId = db.prepare<[string], DeliveryRow>('SELECT * FROM deliveries WHERE id = ?');
  const bodyOf = db.prepare<[string], { body: Buffer }>('SELECT body FROM delivery_bodies WHERE delivery_id = ?');
  const queuedBodies = new QueuedBodies();
  const bodyFor = (id: string): Buffer => queuedBodies.take(id) ?? bodyOf.get(id)?.body ?? Buffer.alloc(0);
  const withBody = (d: Delivery): DeliveryWithBody => ({ ...d, body: bodyFor(d.id) });
  const insert = db.prepare(
    `INSERT INTO deliveries (id, site_id, slug, event, origin, state, next_attempt_at, created_at, lease_owner, lease_until)
     VALUES (@id, @siteId, @slug, @event, @origin, 'pending', @now, @now, @leaseOwner, @leaseUntil)`,
  );
  const insertBody = db.prepare('INSERT INTO delivery_bodies (delivery_id, body) VALUES (?, ?)');
  const pendingPublish = db.prepare<[string, string], DeliveryRow>(
    `SELECT * FROM deliveries WHERE site_id = ? AND slug = ? AND state = 'pending' AND origin = 'publish' ORDER BY created_at DESC`,
  );
  const supersede = db.prepare(
    `UPDATE deliveries SET state = 'superseded', settled_at = ?, next_attempt_at = NULL WHERE id = ? AND state = 'pending'`,
  );
  // Returns only what a sender needs: building the whole row into an object was a third of a
  // claim's cost. Positional, like the attempt statements below: it runs for every delivery.
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
  const pendingSummary = db.prepare<[], { n: number; oldest: number | null }>(
    `SELECT count(*) AS n, min(created_at) AS oldest FROM deliveries WHERE state = 'pending'`,
  );
  // Positional parameters: binding by position is cheaper than by name, and these two run for
  // every attempt.
  const insertAttempt = db.prepare<
    [
      string,
      string,
      number,
      number,
      number | null,
      string | null,
      string | null,
      string | null,
      string | null,
      string | null,
    ]
  >(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, redirect_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The new state: the verdict's, unless the delivery was superseded meanwhile (it stays so).
  const settle = db.prepare<
    [number | null, string | null, string | null, string | null, string, string, number | null, string, number, string]
  >(
    `UPDATE deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
       reply_url = COALESCE(?, reply_url), reply_id = COALESCE(?, reply_id),
       state = CASE WHEN state = 'pending' THEN ? ELSE state END,
       next_attempt_at = CASE WHEN state = 'pending' AND ? = 'pending' THEN ? ELSE NULL END,
       settled_at = CASE WHEN state = 'pending' AND ? <> 'pending' THEN ? ELSE settled_at END,
       lease_until = NULL, lease_owner = NULL
     WHERE id = ?`,
  );

  return {
    get(id: string): DeliveryWithBody | null {
      const row = byId.get(id);
      return row ? withBody(toDelivery(row)) : null;
    },

    pendingPublishFor(siteId: string, slug: string): Delivery | null {
      const row = pendingPublish.get(siteId, slug);
      return row ? toDelivery(row) : null;
    },

    enqueue(d: NewDelivery, now: number, lease: { owner: string; until: number } | null = null): string {
      const id = newDeliveryId(now);
      db.transaction(() => {
        if (d.origin === 'publish') for (const old of pendingPublish.all(d.siteId, d.slug)) supersede.run(now, old.id);
        insert.run({
          id,
          siteId: d.siteId,
          slug: d.slug,
          event: d.event,
          origin: d.origin,
          now,
          leaseOwner: lease?.owner ?? null,
          leaseUntil: lease?.until ?? null,
        });
        insertBody.run(id, d.body);
      }).immediate();
      queuedBodies.add(id, d.body);
      return id;
    },

    due(now: number, siteId: string | null = null, limit = 100): string[] {
      return due.all({ now, site: siteId, limit }).map((r) => r.id);
    },

    nextDueAt(siteId: string | null): number | null {
      return nextDue.get({ site: siteId })?.at ?? null;
    },

    inFlight(siteId: string | null, now: number): number {
      return held.get({ site: siteId, now })!.n;
    },

    claim(id: string, owner: string, now: number, leaseUntil: number): boolean {
      return this.take(id, owner, now, leaseUntil) !== null;
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
            body: bodyFor(row.id),
          }
        : null;
    },

    // One transaction for the lot: a claim is a committed write.
    takeMany(ids: string[], owner: string, now: number, leaseUntil: number): ClaimedDelivery[] {
      return db.transaction(() => ids.flatMap((id) => this.take(id, owner, now, leaseUntil) ?? [])).immediate();
    },

    // One transaction: no other process writes between the list and the claims.
    takeDue(now: number, siteId: string | null, limit: number, owner: string, leaseUntil: number): ClaimedDelivery[] {
      return db.transaction(() => this.takeMany(this.due(now, siteId, limit), owner, now, leaseUntil)).immediate();
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

    recordAttempt(id: string, attempt: AttemptRecord, verdict: AttemptVerdict, now: number): void {
      this.recordAttempts([{ id, attempt, verdict, now }]);
    },

    // One transaction for the lot: one commit instead of one per delivery.
    recordAttempts(records: { id: string; attempt: AttemptRecord; verdict: AttemptVerdict; now: number }[]): void {
      db.transaction(() => {
        for (const { id, attempt: a, verdict, now } of records) {
          insertAttempt.run(
            id,
            a.url,
            a.startedAt,
            a.durationMs,
            a.status,
            a.error,
            a.errorKind ?? null,
            a.replyUrl,
            a.replyId,
            a.redirectTo ?? null,
          );
          const { state } = verdict;
          settle.run(
            a.status,
            attemptErrorText(a),
            a.replyUrl,
            a.replyId,
            state,
            state,
            state === 'pending' ? verdict.nextAttemptAt : null,
            state,
            now,
            id,
          );
        }
      }).immediate();
    },

    unacknowledged(siteId: string): DeliveryWithBody[] {
      return db
        .prepare<[string], DeliveryRow>(
          `SELECT * FROM deliveries d WHERE d.site_id = ? AND d.state = 'failed' AND d.origin <> 'test'
             AND d.id = (SELECT o.id FROM deliveries o WHERE o.site_id = d.site_id AND o.slug = d.slug
               AND o.origin <> 'test' AND o.state <> 'superseded' ORDER BY o.created_at DESC, o.id DESC LIMIT 1)
           ORDER BY d.created_at, d.id`,
        )
        .all(siteId)
        .map((row) => withBody(toDelivery(row)));
    },

    undelivered(siteId: string, limit?: number): UndeliveredEntry[] {
      return listUndelivered(db, siteId, limit);
    },

    supersede(id: string, now: number): boolean {
      return supersede.run(now, id).changes > 0;
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

    newerForSlug(d: Delivery): Delivery | null {
      const row = db
        .prepare<[string, string, string], DeliveryRow>(
          `SELECT * FROM deliveries WHERE site_id = ? AND slug = ? AND id > ? AND origin <> 'test' ORDER BY id DESC LIMIT 1`,
        )
        .get(d.siteId, d.slug, d.id);
      return row ? toDelivery(row) : null;
    },

    latestReplyUrl(siteId: string, slug: string): string | null {
      const row = db
        .prepare<[string, string], { reply_url: string }>(
          `SELECT reply_url FROM deliveries WHERE site_id = ? AND slug = ? AND reply_url IS NOT NULL ORDER BY settled_at DESC, id DESC LIMIT 1`,
        )
        .get(siteId, slug);
      return row?.reply_url ?? null;
    },

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
        counts: this.counts(),
        oldestPendingAt: r.oldest,
        inFlight: r.in_flight,
        senders: r.senders,
        attempts: { since, delivered: r.delivered, failed: r.failed },
      };
    },

    list(opts: { siteId?: string | null; limit?: number; states?: DeliveryState[] } = {}): Delivery[] {
      const states = opts.states ?? ['pending', 'delivered', 'failed', 'superseded'];
      return db
        .prepare<{ site: string | null; states: string; limit: number }, DeliveryRow>(
          `SELECT * FROM deliveries WHERE (@site IS NULL OR site_id = @site) AND state IN (SELECT value FROM json_each(@states))
           ORDER BY created_at DESC, id DESC LIMIT @limit`,
        )
        .all({ site: opts.siteId ?? null, states: JSON.stringify(states), limit: opts.limit ?? 100 })
        .map(toDelivery);
    },

    attemptLog(opts: { siteId?: string | null; limit?: number } = {}): AttemptLogEntry[] {
      return db
        .prepare<{ site: string | null; limit: number }, AttemptRow>(
          `SELECT a.*, d.site_id, d.slug, d.event, d.origin, d.state AS delivery_state FROM attempts a
           JOIN deliveries d ON d.id = a.delivery_id
           WHERE (@site IS NULL OR d.site_id = @site) ORDER BY a.started_at DESC, a.id DESC LIMIT @limit`,
        )
        .all({ site: opts.siteId ?? null, limit: opts.limit ?? 200 })
        .map(toAttemptLogEntry);
    },
  };
}
