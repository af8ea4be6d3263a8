// A site's two records (see PublishRecords): the change feed's state (published_sites with the
// build it stands for, published_articles, each change also appended to the change log in the
// same transaction), and what its webhook receiver was last sent (webhook_sent_sites,
// webhook_sent_articles), advanced only when events were queued for a registered webhook.
import type {
  ArticleChange,
  ChangeType,
  FeedBuild,
  FeedState,
  RecordedArticle,
  RecordedChange,
  RecordedState,
  SitePublishRecord,
} from '../records.ts';
import type { PublishRecords } from '../state-interface.ts';
import type { AppendableChangeLog } from './change-log.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export function createPublishState(db: StateDb, changeLog: AppendableChangeLog): Synchronous<PublishRecords> {
  const feedSite = db.prepare<
    [string],
    { commit_sha: string | null; at: number; build_id: string | null; built_at: number | null }
  >('SELECT commit_sha, published_at AS at, build_id, built_at FROM published_sites WHERE site_id = ?');
  const feedArticles = db.prepare<[string], { slug: string; state: RecordedState; payload_hash: string | null }>(
    'SELECT slug, state, payload_hash FROM published_articles WHERE site_id = ?',
  );
  const sentSite = db.prepare<[string], { commit_sha: string | null; at: number }>(
    'SELECT commit_sha, sent_at AS at FROM webhook_sent_sites WHERE site_id = ?',
  );
  const sentArticles = db.prepare<[string], { slug: string; state: RecordedState; payload_hash: string | null }>(
    'SELECT slug, state, payload_hash FROM webhook_sent_articles WHERE site_id = ?',
  );
  // A recording without a build keeps the one the state stood for.
  const upsertSite = db.prepare<[string, string | null, number, string | null, number | null]>(
    `INSERT INTO published_sites (site_id, commit_sha, published_at, build_id, built_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (site_id) DO UPDATE SET commit_sha = excluded.commit_sha, published_at = excluded.published_at,
       build_id = coalesce(excluded.build_id, build_id), built_at = coalesce(excluded.built_at, built_at)`,
  );
  const stateOf = db.prepare<[string, string], { state: RecordedState }>(
    'SELECT state FROM published_articles WHERE site_id = ? AND slug = ?',
  );
  const upsertArticle = db.prepare(
    `INSERT INTO published_articles (site_id, slug, state, payload_hash, item, changed_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (site_id, slug) DO UPDATE SET state = excluded.state, payload_hash = excluded.payload_hash, item = excluded.item, changed_at = excluded.changed_at`,
  );
  const upsertSentSite = db.prepare(
    `INSERT INTO webhook_sent_sites (site_id, commit_sha, sent_at) VALUES (?, ?, ?)
     ON CONFLICT (site_id) DO UPDATE SET commit_sha = excluded.commit_sha, sent_at = excluded.sent_at`,
  );
  const upsertSentArticle = db.prepare(
    `INSERT INTO webhook_sent_articles (site_id, slug, state, payload_hash) VALUES (?, ?, ?, ?)
     ON CONFLICT (site_id, slug) DO UPDATE SET state = excluded.state, payload_hash = excluded.payload_hash`,
  );
  const readRecord = (
    site: { commit_sha: string | null; at: number } | undefined,
    rows: () => Iterable<{ slug: string; state: RecordedState; payload_hash: string | null }>,
  ): SitePublishRecord | null => {
    if (!site) return null;
    const map = new Map<string, RecordedArticle>();
    for (const a of rows()) map.set(a.slug, { state: a.state, payloadHash: a.payload_hash });
    return { commit: site.commit_sha, publishedAt: site.at, articles: map };
  };

  return {
    get: (siteId: string) => readRecord(sentSite.get(siteId), () => sentArticles.iterate(siteId)),
    feedState(siteId: string): FeedState | null {
      const site = feedSite.get(siteId);
      const record = readRecord(site, () => feedArticles.iterate(siteId));
      return (
        record && {
          ...record,
          build:
            site!.build_id !== null && site!.built_at !== null ? { id: site!.build_id, builtAt: site!.built_at } : null,
        }
      );
    },
    record(
      siteId: string,
      commit: string | null,
      changes: RecordedChange[],
      now: number,
      sent: ArticleChange[] | null = changes,
      build?: FeedBuild,
    ): void {
      upsertSite.run(siteId, commit, now, build?.id ?? null, build?.builtAt ?? null);
      const logged: { slug: string; type: ChangeType; item: string | null }[] = [];
      for (const c of changes) {
        // `updated`: published before and now; `published`: new, or back after a withdrawal.
        const type: ChangeType =
          c.state !== 'published'
            ? c.state
            : stateOf.get(siteId, c.slug)?.state === 'published'
              ? 'updated'
              : 'published';
        logged.push({ slug: c.slug, type, item: c.state === 'published' ? c.item : null });
        upsertArticle.run(siteId, c.slug, c.state, c.payloadHash, c.state === 'published' ? c.item : null, now);
      }
      changeLog.append(siteId, logged, now);
      if (sent === null) return;
      upsertSentSite.run(siteId, commit, now);
      for (const c of sent) upsertSentArticle.run(siteId, c.slug, c.state, c.payloadHash);
    },
    forget(siteId: string): void {
      for (const table of ['published_articles', 'published_sites', 'webhook_sent_articles', 'webhook_sent_sites']) {
        db.prepare(`DELETE FROM ${table} WHERE site_id = ?`).run(siteId);
      }
      changeLog.forget(siteId);
    },
  };
}
