// The change log on PostgreSQL (see the ChangeLog interface and sqlite/change-log.ts). Positions
// are each site's own, from its counter row in change_log_sites, updated in the recording
// transaction, not from a sequence: a sequence hands out numbers before commit, so a reader could
// be given a position past an entry still to be committed and never see it. The row's lock also
// makes two recordings of one site (from two servers) take their positions one after the other,
// in the order they commit. Each read is one statement: its bounds and rows are of one moment.
import {
  CHANGE_LOG_KEEP_PER_SITE,
  type ChangeEntry,
  type ChangePage,
  type ChangeType,
  type PublishedNow,
} from '../records.ts';
import type { ChangeLog } from '../state-interface.ts';
import type { Db } from './connection.ts';
import { identityIn } from './store-identity.ts';

export interface AppendableChangeLog extends ChangeLog {
  append(
    db: Db,
    siteId: string,
    entries: { slug: string; type: ChangeType; item: string | null }[],
    now: number,
  ): Promise<void>;
  /** Drops the site's history (its publish record is forgotten): its cursors expire. */
  forget(db: Db, siteId: string): Promise<void>;
}

/** `databaseKey`: where this connection's database is (store-identity.ts), known once the store is ready. */
export function createChangeLog(
  db: Db,
  databaseKey: () => string,
  keepPerSite = CHANGE_LOG_KEEP_PER_SITE,
): AppendableChangeLog {
  let storeId: string | null = null;
  return {
    async storeId() {
      return (storeId ??= identityIn(
        (await db.rows<{ id: string; made_in: string | null }>('SELECT id, made_in FROM store_identity'))[0]!,
        databaseKey(),
      ));
    },
    async after(siteId, position, limit) {
      const rows = await db.rows<{
        newest: number;
        through: number;
        seq: number | null;
        slug: string;
        type: ChangeType;
        item: string | null;
        at: number;
      }>(
        `SELECT b.newest, b.through, c.seq, c.slug, c.type, c.item, c.at
         FROM (SELECT coalesce(s.newest, 0) AS newest, coalesce(s.through, 0) AS through
               FROM (SELECT 1) one LEFT JOIN change_log_sites s ON s.site_id = $1) b
         LEFT JOIN LATERAL (SELECT seq, slug, type, item, at FROM article_changes WHERE site_id = $1 AND seq > $2 ORDER BY seq LIMIT $3) c ON true
         ORDER BY c.seq`,
        [siteId, position, limit + 1],
      );
      const { newest, through } = rows[0]!;
      if (position > newest || position < through) return { status: 'expired' } satisfies ChangePage;
      const entries: ChangeEntry[] = rows
        .filter((r) => r.seq !== null)
        .map((r) => ({ seq: r.seq!, slug: r.slug, type: r.type, item: r.item, at: r.at }));
      const more = entries.length > limit;
      if (more) entries.pop();
      return { status: 'ok', entries, more, position: entries.at(-1)?.seq ?? position };
    },
    async publishedNow(siteId): Promise<PublishedNow> {
      const rows = await db.rows<{
        newest: number;
        recorded: boolean;
        slug: string | null;
        item: string | null;
        at: number;
      }>(
        `SELECT b.newest, b.recorded, p.slug, p.item, p.at
         FROM (SELECT coalesce((SELECT newest FROM change_log_sites WHERE site_id = $1), 0) AS newest, EXISTS (SELECT 1 FROM published_sites WHERE site_id = $1) AS recorded) b
         LEFT JOIN LATERAL (SELECT slug, item, changed_at AS at FROM published_articles WHERE site_id = $1 AND state = 'published') p ON b.recorded
         ORDER BY p.at, p.slug`,
        [siteId],
      );
      const { newest, recorded } = rows[0]!;
      return {
        articles: recorded
          ? rows.filter((r) => r.slug !== null).map((r) => ({ slug: r.slug!, item: r.item, at: r.at }))
          : null,
        position: newest,
      };
    },
    async append(tx, siteId, entries, now) {
      if (!entries.length) return;
      const [{ newest }] = (await tx.rows<{ newest: number }>(
        `INSERT INTO change_log_sites (site_id, newest, through) VALUES ($1, $2, 0)
         ON CONFLICT (site_id) DO UPDATE SET newest = change_log_sites.newest + excluded.newest RETURNING newest`,
        [siteId, entries.length],
      )) as [{ newest: number }];
      const first = newest - entries.length + 1;
      await tx.run(
        `INSERT INTO article_changes (seq, site_id, slug, type, item, at)
         SELECT $1 + e.n - 1, $2, e.slug, e.type, e.item, $3 FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(slug, type, item, n)`,
        [first, siteId, now, entries.map((e) => e.slug), entries.map((e) => e.type), entries.map((e) => e.item)],
      );
      const [cut] = await tx.rows<{ seq: number }>(
        'SELECT seq FROM article_changes WHERE site_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2',
        [siteId, keepPerSite],
      );
      if (!cut) return;
      await tx.run('DELETE FROM article_changes WHERE site_id = $1 AND seq <= $2', [siteId, cut.seq]);
      await notePruned(tx, siteId, cut.seq);
    },
    async forget(tx, siteId) {
      await tx.run('DELETE FROM article_changes WHERE site_id = $1', [siteId]);
      // Every cursor of the site made so far now points before its (empty) history: expired.
      await tx.run('UPDATE change_log_sites SET through = newest WHERE site_id = $1', [siteId]);
    },
  };
}

function notePruned(tx: Db, siteId: string, through: number): Promise<number> {
  return tx.run('UPDATE change_log_sites SET through = greatest(through, $2) WHERE site_id = $1', [siteId, through]);
}
