// Deliveries that failed and have not been made good since: per article, its newest failed
// delivery when no later delivery of that article succeeded. Test connection is left out: it is
// a check of the receiver, not a delivery an article is waiting for.
import type { DeliveryOrigin, UndeliveredEntry } from '../records.ts';
import type { StateDb } from './database.ts';

/** Delivery ids are time-ordered (newDeliveryId), so `id >` means "created later". */
const QUERY = `
  SELECT d.id, d.slug, d.event, d.origin, d.settled_at, d.last_status, d.last_error FROM deliveries d
  WHERE d.site_id = @site AND d.state = 'failed' AND d.origin <> 'test'
    AND NOT EXISTS (
      SELECT 1 FROM deliveries later
      WHERE later.site_id = d.site_id AND later.slug = d.slug AND later.origin <> 'test' AND later.id > d.id
        AND later.state IN ('delivered', 'failed'))
  ORDER BY d.id DESC
  LIMIT @limit`;

/** At most `limit` entries, newest first. */
export function listUndelivered(db: StateDb, siteId: string, limit = 500): UndeliveredEntry[] {
  return db
    .prepare<
      { site: string; limit: number },
      {
        id: string;
        slug: string;
        event: string;
        origin: DeliveryOrigin;
        settled_at: number | null;
        last_status: number | null;
        last_error: string | null;
      }
    >(QUERY)
    .all({ site: siteId, limit })
    .map((r) => ({
      deliveryId: r.id,
      slug: r.slug,
      event: r.event,
      origin: r.origin,
      failedAt: r.settled_at,
      lastStatus: r.last_status,
      lastError: r.last_error,
    }));
}
