// What each site's receiver was last sent: the commit of the last publish and, per slug, whether
// the article was published then and the hash of the payload queued for it. Each recorded change
// is also appended to the change log (change-log.ts), in the same transaction.
import type { ChangeType, RecordedArticle, RecordedChange, RecordedState, SitePublishRecord } from '../records.ts';
import type { PublishRecords } from '../state-interface.ts';
import type { AppendableChangeLog } from './change-log.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export function createPublishState(db: StateDb, changeLog: AppendableChangeLog): Synchronous<PublishRecords> {
  const site = db.prepare<[string], { commit_sha: string | null; published_at: number }>('SELECT commit_sha, published_at FROM published_sites WHERE site_id = ?');
  const articles = db.prepare<[string], { slug: string; state: RecordedState; payload_hash: string | null }>(
    'SELECT slug, state, payload_hash FROM published_articles WHERE site_id = ?',
  );
  const upsertSite = db.prepare(
    `INSERT INTO published_sites (site_id, commit_sha, published_at) VALUES (?, ?, ?)
     ON CONFLICT (site_id) DO UPDATE SET commit_sha = excluded.commit_sha, published_at = excluded.published_at`,
  );
  const stateOf = db.prepare<[string, string], { state: RecordedState }>('SELECT state FROM published_articles WHERE site_id = ? AND slug = ?');
  const upsertArticle = db.prepare(
    `INSERT INTO published_articles (site_id, slug, state, payload_hash, item, changed_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (site_id, slug) DO UPDATE SET state = excluded.state, payload_hash = excluded.payload_hash, item = excluded.item, changed_at = excluded.changed_at`,
  );

  return {
    /** null: the site was never published (its first publish sends everything, or --baseline). */
    get(siteId: string): SitePublishRecord | null {
      const row = site.get(siteId);
      if (!row) return null;
      const map = new Map<string, RecordedArticle>();
      for (const a of articles.iterate(siteId)) map.set(a.slug, { state: a.state, payloadHash: a.payload_hash });
      return { commit: row.commit_sha, publishedAt: row.published_at, articles: map };
    },
    /** Records a publish; call inside the transaction that queues its deliveries. */
    record(siteId: string, commit: string | null, changes: RecordedChange[], now: number): void {
      upsertSite.run(siteId, commit, now);
      const logged: { slug: string; type: ChangeType; item: string | null }[] = [];
      for (const c of changes) {
        // `updated`: published before and now; `published`: new, or back after a withdrawal.
        const type: ChangeType = c.state !== 'published' ? c.state : stateOf.get(siteId, c.slug)?.state === 'published' ? 'updated' : 'published';
        logged.push({ slug: c.slug, type, item: c.state === 'published' ? c.item : null });
        upsertArticle.run(siteId, c.slug, c.state, c.payloadHash, c.state === 'published' ? c.item : null, now);
      }
      changeLog.append(siteId, logged, now);
    },
    forget(siteId: string): void {
      db.prepare('DELETE FROM published_articles WHERE site_id = ?').run(siteId);
      db.prepare('DELETE FROM published_sites WHERE site_id = ?').run(siteId);
      changeLog.forget(siteId);
    },
  };
}
