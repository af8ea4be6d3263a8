// The change log on SQLite: every article change recorded (by a publish, or by a server for what
// it serves), in order, with the list item a published or updated article had then, at a position
// of its site's own; pruned per site to the newest entries (retention is what makes an old cursor
// expire: see CHANGE_LOG_KEEP_PER_SITE).
// Appended only by publish-state.ts, in the transaction that records the changes (and queues
// their webhooks).
import {
  CHANGE_LOG_KEEP_PER_SITE,
  type ChangeEntry,
  type ChangePage,
  type ChangeType,
  type PublishedNow,
} from '../records.ts';
import type { ChangeLog } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export interface AppendableChangeLog extends Synchronous<ChangeLog> {
  append(siteId: string, entries: { slug: string; type: ChangeType; item: string | null }[], now: number): void;
  /** Drops the site's history (its publish record is forgotten): its cursors expire. */
  forget(siteId: string): void;
}

export function createChangeLog(db: StateDb, keepPerSite = CHANGE_LOG_KEEP_PER_SITE): AppendableChangeLog {
  const identity = db.prepare<[], { id: string }>('SELECT id FROM store_identity');
  // A backup holds no identity (state-backup.ts): a store restored from one makes its own, so
  // every cursor made before the restore expires instead of reading a log that went back and then
  // grew again over the same positions. Restored twice from one backup, it is two stores.
  if (!identity.get()) {
    db.transaction(() =>
      db
        .prepare(
          'INSERT INTO store_identity (id) SELECT lower(hex(randomblob(8))) WHERE NOT EXISTS (SELECT 1 FROM store_identity)',
        )
        .run(),
    ).immediate();
  }
  // Positions are the site's own (1, 2, 3…): a site's cursors tell nothing of other sites' changes.
  const site = db.prepare<[string], { newest: number; through: number }>(
    'SELECT newest, through FROM change_log_sites WHERE site_id = ?',
  );
  const handOut = db.prepare<[string, number], { newest: number }>(
    `INSERT INTO change_log_sites (site_id, newest, through) VALUES (?, ?, 0)
     ON CONFLICT (site_id) DO UPDATE SET newest = newest + excluded.newest RETURNING newest`,
  );
  const insert = db.prepare(
    'INSERT INTO article_changes (site_id, seq, slug, type, item, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const cutoff = db.prepare<[string, number], { seq: number }>(
    'SELECT seq FROM article_changes WHERE site_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
  );
  const prune = db.prepare('DELETE FROM article_changes WHERE site_id = ? AND seq <= ?');
  const notePruned = db.prepare('UPDATE change_log_sites SET through = max(through, ?) WHERE site_id = ?');
  const forgetAll = db.prepare('DELETE FROM article_changes WHERE site_id = ?');
  const page = db.prepare<[string, number, number], ChangeEntry>(
    'SELECT seq, slug, type, item, at FROM article_changes WHERE site_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const published = db.prepare<[string], { slug: string; item: string | null; at: number }>(
    "SELECT slug, item, changed_at AS at FROM published_articles WHERE site_id = ? AND state = 'published' ORDER BY changed_at, slug",
  );
  const recorded = db.prepare<[string], { site_id: string }>('SELECT site_id FROM published_sites WHERE site_id = ?');
  /** The site's newest position ever handed out, and the newest its pruning removed (0, 0: none yet). */
  const boundsOf = (siteId: string) => site.get(siteId) ?? { newest: 0, through: 0 };
  let storeId: string | null = null;
  // Each read is one read transaction: its bounds and its rows are of the same moment.
  const readAfter = db.transaction((siteId: string, position: number, limit: number): ChangePage => {
    const { newest, through } = boundsOf(siteId);
    if (position > newest || position < through) return { status: 'expired' };
    const entries = page.all(siteId, position, limit + 1);
    const more = entries.length > limit;
    if (more) entries.pop();
    return { status: 'ok', entries, more, position: entries.at(-1)?.seq ?? position };
  });
  const readPublishedNow = db.transaction(
    (siteId: string): PublishedNow => ({
      articles: recorded.get(siteId) ? published.all(siteId) : null,
      position: boundsOf(siteId).newest,
    }),
  );

  return {
    storeId: () => (storeId ??= identity.get()!.id),
    append(siteId, entries, now) {
      if (!entries.length) return;
      const first = handOut.get(siteId, entries.length)!.newest - entries.length + 1;
      entries.forEach((e, i) => insert.run(siteId, first + i, e.slug, e.type, e.item, now));
      const cut = cutoff.get(siteId, keepPerSite);
      if (!cut) return;
      prune.run(siteId, cut.seq);
      notePruned.run(cut.seq, siteId);
    },
    forget(siteId) {
      // Every cursor of the site made so far now points before its (empty) history: expired.
      forgetAll.run(siteId);
      notePruned.run(boundsOf(siteId).newest, siteId);
    },
    after: readAfter,
    publishedNow: readPublishedNow,
  };
}
