// A site's two records on PostgreSQL (see the PublishRecords interface): the change feed's state
// with the build it stands for (each change appended to the change log in the same transaction),
// and what its webhook receiver was last sent.
import type {
  ArticleChange,
  ChangeType,
  FeedState,
  RecordedArticle,
  RecordedState,
  SitePublishRecord,
} from '../records.ts';
import type { PublishRecords } from '../state-interface.ts';
import type { AppendableChangeLog } from './change-log.ts';
import type { Db } from './connection.ts';

export function createPublishRecords(db: Db, changeLog: AppendableChangeLog): PublishRecords {
  const articlesOf = async (siteId: string, table: string): Promise<Map<string, RecordedArticle>> => {
    const map = new Map<string, RecordedArticle>();
    for (const a of await db.rows<{ slug: string; state: RecordedState; payload_hash: string | null }>(
      `SELECT slug, state, payload_hash FROM ${table} WHERE site_id = $1`,
      [siteId],
    )) {
      map.set(a.slug, { state: a.state, payloadHash: a.payload_hash });
    }
    return map;
  };
  return {
    async get(siteId): Promise<SitePublishRecord | null> {
      const [site] = await db.rows<{ commit_sha: string | null; at: number }>(
        'SELECT commit_sha, sent_at AS at FROM webhook_sent_sites WHERE site_id = $1',
        [siteId],
      );
      return site
        ? { commit: site.commit_sha, publishedAt: site.at, articles: await articlesOf(siteId, 'webhook_sent_articles') }
        : null;
    },
    async feedState(siteId): Promise<FeedState | null> {
      const [site] = await db.rows<{
        commit_sha: string | null;
        at: number;
        build_id: string | null;
        built_at: number | null;
      }>('SELECT commit_sha, published_at AS at, build_id, built_at FROM published_sites WHERE site_id = $1', [siteId]);
      if (!site) return null;
      const build =
        site.build_id !== null && site.built_at !== null ? { id: site.build_id, builtAt: site.built_at } : null;
      return {
        commit: site.commit_sha,
        publishedAt: site.at,
        articles: await articlesOf(siteId, 'published_articles'),
        build,
      };
    },
    record(siteId, commit, changes, now, sent: ArticleChange[] | null = changes, build) {
      return db.atomically(async (tx) => {
        // A recording without a build keeps the one the state stood for.
        await tx.run(
          `INSERT INTO published_sites (site_id, commit_sha, published_at, build_id, built_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (site_id) DO UPDATE SET commit_sha = excluded.commit_sha, published_at = excluded.published_at,
             build_id = coalesce(excluded.build_id, published_sites.build_id), built_at = coalesce(excluded.built_at, published_sites.built_at)`,
          [siteId, commit, now, build?.id ?? null, build?.builtAt ?? null],
        );
        if (changes.length) {
          // Each change in order, as SQLite records them one after another: `updated` is published
          // before and now, `published` new or back after a withdrawal.
          const stateNow = new Map<string, RecordedState>();
          for (const r of await tx.rows<{ slug: string; state: RecordedState }>(
            'SELECT slug, state FROM published_articles WHERE site_id = $1 AND slug = ANY($2::text[])',
            [siteId, changes.map((c) => c.slug)],
          ))
            stateNow.set(r.slug, r.state);
          const logged: { slug: string; type: ChangeType; item: string | null }[] = [];
          const last = new Map<string, { state: RecordedState; payloadHash: string | null; item: string | null }>();
          for (const c of changes) {
            const type: ChangeType =
              c.state !== 'published' ? c.state : stateNow.get(c.slug) === 'published' ? 'updated' : 'published';
            const item = c.state === 'published' ? c.item : null;
            logged.push({ slug: c.slug, type, item });
            stateNow.set(c.slug, c.state);
            last.set(c.slug, { state: c.state, payloadHash: c.payloadHash, item });
          }
          await tx.run(
            `INSERT INTO published_articles (site_id, slug, state, payload_hash, item, changed_at)
             SELECT $1, c.slug, c.state, c.payload_hash, c.item, $2 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS c(slug, state, payload_hash, item)
             ON CONFLICT (site_id, slug) DO UPDATE SET state = excluded.state, payload_hash = excluded.payload_hash, item = excluded.item, changed_at = excluded.changed_at`,
            [
              siteId,
              now,
              [...last.keys()],
              [...last.values()].map((c) => c.state),
              [...last.values()].map((c) => c.payloadHash),
              [...last.values()].map((c) => c.item),
            ],
          );
          await changeLog.append(tx, siteId, logged, now);
        }
        if (sent === null) return;
        await tx.run(
          `INSERT INTO webhook_sent_sites (site_id, commit_sha, sent_at) VALUES ($1, $2, $3)
           ON CONFLICT (site_id) DO UPDATE SET commit_sha = excluded.commit_sha, sent_at = excluded.sent_at`,
          [siteId, commit, now],
        );
        const lastSent = new Map(sent.map((c) => [c.slug, c]));
        if (!lastSent.size) return;
        await tx.run(
          `INSERT INTO webhook_sent_articles (site_id, slug, state, payload_hash)
           SELECT $1, c.slug, c.state, c.payload_hash FROM unnest($2::text[], $3::text[], $4::text[]) AS c(slug, state, payload_hash)
           ON CONFLICT (site_id, slug) DO UPDATE SET state = excluded.state, payload_hash = excluded.payload_hash`,
          [
            siteId,
            [...lastSent.keys()],
            [...lastSent.values()].map((c) => c.state),
            [...lastSent.values()].map((c) => c.payloadHash),
          ],
        );
      });
    },
    forget(siteId) {
      return db.atomically(async (tx) => {
        for (const table of ['published_articles', 'published_sites', 'webhook_sent_articles', 'webhook_sent_sites'])
          await tx.run(`DELETE FROM ${table} WHERE site_id = $1`, [siteId]);
        await changeLog.forget(tx, siteId);
      });
    },
  };
}
