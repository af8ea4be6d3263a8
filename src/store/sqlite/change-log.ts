// The change log on SQLite: every article change a publish records, in order, with the list item
// a published or updated article had then; pruned per site to the newest entries (retention is
// what makes an old cursor expire: see CHANGE_LOG_KEEP_PER_SITE). Appended only by
// publish-state.ts, in the transaction that records the publish (and queues its webhooks).
import { CHANGE_LOG_KEEP_PER_SITE, type ChangeEntry, type ChangePage, type ChangeType, type PublishedNow } from '../records.ts';
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
    db.transaction(() => db.prepare('INSERT INTO store_identity (id) SELECT lower(hex(randomblob(8))) WHERE NOT EXISTS (SELECT 1 FROM store_identity)').run()).immediate();
  }
  const insert = db.prepare('INSERT INTO article_changes (site_id, slug, type, item, at) VALUES (?, ?, ?, ?, ?)');
  // The newest position the store ever handed out (AUTOINCREMENT keeps it after deletions).
  const newest = db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'article_changes'");
  const cutoff = db.prepare<[string, number], { seq: number }>('SELECT seq FROM article_changes WHERE site_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?');
  const prune = db.prepare('DELETE FROM article_changes WHERE site_id = ? AND seq <= ?');
  const notePruned = db.prepare(
    `INSERT INTO article_changes_pruned (site_id, through) VALUES (?, ?)
     ON CONFLICT (site_id) DO UPDATE SET through = max(through, excluded.through)`,
  );
  const prunedThrough = db.prepare<[string], { through: number }>('SELECT through FROM article_changes_pruned WHERE site_id = ?');
  const forgetAll = db.prepare('DELETE FROM article_changes WHERE site_id = ?');
  const page = db.prepare<[string, number, number], ChangeEntry>('SELECT seq, slug, type, item, at FROM article_changes WHERE site_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const published = db.prepare<[string], { slug: string; item: string | null; at: number }>(
    "SELECT slug, item, changed_at AS at FROM published_articles WHERE site_id = ? AND state = 'published' ORDER BY changed_at, slug",
  );
  const recorded = db.prepare<[string], { site_id: string }>('SELECT site_id FROM published_sites WHERE site_id = ?');
  const newestPosition = () => newest.get()?.seq ?? 0;
  let storeId: string | null = null;
  // Each read is one read transaction: its bounds and its rows are of the same moment.
  const readAfter = db.transaction((siteId: string, position: number, limit: number): ChangePage => {
    if (position > newestPosition() || position < (prunedThrough.get(siteId)?.through ?? 0)) return { status: 'expired' };
    const entries = page.all(siteId, position, limit + 1);
    const more = entries.length > limit;
    if (more) entries.pop();
    return { status: 'ok', entries, more, position: entries.at(-1)?.seq ?? position };
  });
  const readPublishedNow = db.transaction((siteId: string): PublishedNow => ({
    articles: recorded.get(siteId) ? published.all(siteId) : null,
    position: newestPosition(),
  }));

  return {
    storeId: () => (storeId ??= identity.get()!.id),
    append(siteId, entries, now) {
      for (const e of entries) insert.run(siteId, e.slug, e.type, e.item, now);
      const cut = cutoff.get(siteId, keepPerSite);
      if (!cut) return;
      prune.run(siteId, cut.seq);
      notePruned.run(siteId, cut.seq);
    },
    forget(siteId) {
      // Every cursor of the site made so far now points before its (empty) history: expired.
      forgetAll.run(siteId);
      notePruned.run(siteId, newestPosition());
    },
    after: readAfter,
    publishedNow: readPublishedNow,
  };
}
