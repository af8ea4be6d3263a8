// Deliveries on SQLite as records: queued (a publish superseding the pending ones of its slug),
// looked up, listed, and the failed ones a receiver is still missing.
import { newDeliveryId } from '../owners.ts';
import type { Delivery, DeliveryState, DeliveryWithBody, NewDelivery, UndeliveredEntry } from '../records.ts';
import { toDelivery, type DeliveryRow } from '../rows.ts';
import { pageCheckRequestOf, type PageCheckColumns } from '../page-check-rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Bodies } from './outbox-bodies.ts';
import type { PageCheckWrites } from './page-checks.ts';
import type { Synchronous } from './serialized.ts';
import { listUndelivered } from './undelivered.ts';

type Deliveries = Pick<
  Synchronous<Outbox>,
  | 'get'
  | 'pendingPublishFor'
  | 'enqueue'
  | 'supersede'
  | 'newerForSlug'
  | 'latestReplyUrl'
  | 'list'
  | 'unacknowledged'
  | 'undelivered'
>;

type WithCheck = DeliveryRow & Pick<PageCheckColumns, 'pc_state' | 'pc_plan'>;

export function createDeliveries(db: StateDb, bodies: Bodies, checks: PageCheckWrites): Deliveries {
  const byId = db.prepare<[string], WithCheck>(
    `SELECT d.*, pc.state AS pc_state, pc.plan AS pc_plan FROM deliveries d
     LEFT JOIN page_checks pc ON pc.delivery_id = d.id WHERE d.id = ?`,
  );
  const withBody = (row: WithCheck) => bodies.withBody(toDelivery(row), pageCheckRequestOf(row));
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

  return {
    get(id: string): DeliveryWithBody | null {
      const row = byId.get(id);
      return row ? withBody(row) : null;
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
        checks.queue(id, d);
      }).immediate();
      bodies.queued(id, d.body);
      return id;
    },

    supersede(id: string, now: number): boolean {
      return supersede.run(now, id).changes > 0;
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

    unacknowledged(siteId: string): DeliveryWithBody[] {
      return db
        .prepare<[string], WithCheck>(
          `SELECT d.*, pc.state AS pc_state, pc.plan AS pc_plan FROM deliveries d LEFT JOIN page_checks pc ON pc.delivery_id = d.id
           WHERE d.site_id = ? AND d.state = 'failed' AND d.origin <> 'test'
             AND d.id = (SELECT o.id FROM deliveries o WHERE o.site_id = d.site_id AND o.slug = d.slug
               AND o.origin <> 'test' AND o.state <> 'superseded' ORDER BY o.created_at DESC, o.id DESC LIMIT 1)
           ORDER BY d.created_at, d.id`,
        )
        .all(siteId)
        .map(withBody);
    },

    undelivered(siteId: string, limit?: number): UndeliveredEntry[] {
      return listUndelivered(db, siteId, limit);
    },
  };
}
