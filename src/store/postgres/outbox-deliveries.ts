// Deliveries on PostgreSQL as records: queued (a publish superseding the pending one of its
// slug), looked up, listed, and the failed ones a receiver is still missing.
import { newDeliveryId } from '../owners.ts';
import type { DeliveryOrigin, UndeliveredEntry } from '../records.ts';
import { toDelivery, type DeliveryRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { Db } from './connection.ts';
import { NOTIFY_DUE } from './due-watch.ts';
import { COLUMNS, TAKE_SLUGS, withBody } from './outbox-sql.ts';
import { queuePageCheck } from './page-checks.ts';

type Deliveries = Pick<
  Outbox,
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

type BodyRow = Parameters<typeof withBody>[0];

export function createDeliveries(db: Db): Deliveries {
  return {
    async get(id) {
      const [row] = await db.rows<BodyRow>(
        `SELECT ${COLUMNS}, b.body, pc.state AS pc_state, pc.plan AS pc_plan FROM deliveries d
         LEFT JOIN delivery_bodies b ON b.delivery_id = d.id LEFT JOIN page_checks pc ON pc.delivery_id = d.id WHERE d.id = $1`,
        [id],
      );
      return row ? withBody(row) : null;
    },

    async pendingPublishFor(siteId, slug) {
      const [row] = await db.rows<DeliveryRow>(
        `SELECT ${COLUMNS} FROM deliveries d WHERE site_id = $1 AND slug = $2 AND state = 'pending' AND origin = 'publish' ORDER BY created_at DESC LIMIT 1`,
        [siteId, slug],
      );
      return row ? toDelivery(row) : null;
    },

    async enqueue(d, now, lease = null) {
      const id = newDeliveryId(now);
      await db.atomically(async (tx) => {
        if (d.origin === 'publish') {
          await tx.run(
            `UPDATE deliveries SET state = 'superseded', settled_at = $1, next_attempt_at = NULL WHERE site_id = $2 AND slug = $3 AND state = 'pending' AND origin = 'publish'`,
            [now, d.siteId, d.slug],
          );
        }
        await tx.run(
          `INSERT INTO deliveries (id, site_id, slug, event, origin, state, next_attempt_at, created_at, lease_owner, lease_until)
           VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6, $7, $8)`,
          [id, d.siteId, d.slug, d.event, d.origin, now, lease?.owner ?? null, lease?.until ?? null],
        );
        // Due at once for whichever sender looks: idle workers are woken (at commit).
        await tx.run(
          lease
            ? 'INSERT INTO delivery_bodies (delivery_id, body) VALUES ($1, $2)'
            : `INSERT INTO delivery_bodies (delivery_id, body) SELECT $1::text, $2::bytea FROM (${NOTIFY_DUE}) AS wake`,
          [id, d.body],
        );
        await queuePageCheck(tx, id, d);
        // Sent by its caller at once: its slug is taken too, if no other sender has it.
        if (lease) await tx.run(TAKE_SLUGS, [[d.siteId], [d.slug], [id], lease.owner, lease.until, now]);
      });
      return id;
    },

    async supersede(id, now) {
      return (
        (await db.run(
          `UPDATE deliveries SET state = 'superseded', settled_at = $1, next_attempt_at = NULL WHERE id = $2 AND state = 'pending'`,
          [now, id],
        )) > 0
      );
    },

    async newerForSlug(d) {
      const [row] = await db.rows<DeliveryRow>(
        `SELECT ${COLUMNS} FROM deliveries d WHERE site_id = $1 AND slug = $2 AND id > $3 AND origin <> 'test' ORDER BY id DESC LIMIT 1`,
        [d.siteId, d.slug, d.id],
      );
      return row ? toDelivery(row) : null;
    },

    async latestReplyUrl(siteId, slug) {
      const [row] = await db.rows<{ reply_url: string }>(
        `SELECT reply_url FROM deliveries WHERE site_id = $1 AND slug = $2 AND reply_url IS NOT NULL ORDER BY settled_at DESC NULLS LAST, id DESC LIMIT 1`,
        [siteId, slug],
      );
      return row?.reply_url ?? null;
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

    async unacknowledged(siteId) {
      const rows = await db.rows<BodyRow>(
        `SELECT ${COLUMNS}, b.body, pc.state AS pc_state, pc.plan AS pc_plan FROM deliveries d
         LEFT JOIN delivery_bodies b ON b.delivery_id = d.id LEFT JOIN page_checks pc ON pc.delivery_id = d.id
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
      const rows = await db.rows<{
        id: string;
        slug: string;
        event: string;
        origin: DeliveryOrigin;
        settled_at: number | null;
        last_status: number | null;
        last_error: string | null;
      }>(
        `SELECT d.id, d.slug, d.event, d.origin, d.settled_at, d.last_status, d.last_error FROM deliveries d
         WHERE d.site_id = $1 AND d.state = 'failed' AND d.origin <> 'test'
           AND NOT EXISTS (
             SELECT 1 FROM deliveries later
             WHERE later.site_id = d.site_id AND later.slug = d.slug AND later.origin <> 'test' AND later.id > d.id
               AND later.state IN ('delivered', 'failed'))
         ORDER BY d.id DESC LIMIT $2`,
        [siteId, limit],
      );
      return rows.map(
        (r): UndeliveredEntry => ({
          deliveryId: r.id,
          slug: r.slug,
          event: r.event,
          origin: r.origin,
          failedAt: r.settled_at,
          lastStatus: r.last_status,
          lastError: r.last_error,
        }),
      );
    },
  };
}
