// `quire state migrate-to-postgres`: the SQLite state (quire.db in the state dir) copied into an
// empty PostgreSQL state in one transaction — webhooks with their sealed secrets as they are
// (the same server secret opens them), every delivery with its bytes and attempts, what each
// site was last sent and its change log (positions and store identity kept, so feed cursors
// stay valid), the API key generations, the page checks — so no history is lost. Leases are not
// copied (no sender of the old state may run meanwhile: a held publish lock refuses the copy);
// locks are the new database's.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { isAlive } from '../owners.ts';
import { stateDbFileOf } from '../../config/state-layout.ts';
import { openStateDb } from '../sqlite/database.ts';
import { StateStoreError } from '../state-store-error.ts';
import { createPool, describeUrl, explainConnectionError, inTransaction, poolDb, type Db } from './connection.ts';
import { createKeyGenerationRecords } from './key-generations.ts';
import { migrate } from './migrations.ts';
import { readDatabaseKey } from './store-identity.ts';

export interface CopySummary {
  webhooks: number;
  deliveries: number;
  attempts: number;
  sites: number;
  /** Keys with a generation above 1. */
  keyGenerations: number;
}

const CHUNK = 500;

export async function copySqliteStateToPostgres(stateDir: string, url: string): Promise<CopySummary> {
  const file = stateDbFileOf(stateDir);
  if (!fs.existsSync(file)) throw new StateStoreError(`${file} does not exist: there is no SQLite state to copy`);
  openStateDb(stateDir).close(); // its schema brought up to date first: the copy reads the latest
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  const pool = createPool(url, 2);
  try {
    const held = sqlite
      .prepare<[], { name: string; pid: number; host: string }>('SELECT name, pid, host FROM locks')
      .all();
    const live = held.find((l) => l.host !== undefined && isAlive(l.pid));
    if (live)
      throw new StateStoreError(
        `the ${live.name} lock of ${file} is held by process ${live.pid} on ${live.host}: stop it (and every server and publish using this state) before copying`,
      );
    const all = <R>(sql: string) => sqlite.prepare<[], R>(sql).all();
    await poolDb(pool, async () => undefined)
      .rows('SELECT 1')
      .catch((e: unknown) => {
        throw explainConnectionError(e, url);
      });
    return await inTransaction(pool, async (db) => {
      await migrate(db, describeUrl(url));
      const databaseKey = await readDatabaseKey(db);
      await refuseUnlessEmpty(db, url);
      const webhooks = all<Record<string, unknown>>('SELECT * FROM webhooks ORDER BY site_id');
      await insertRows(
        db,
        'webhooks',
        [
          'site_id',
          'url',
          'secret_sealed',
          'secret_hint',
          'extra_events',
          'disabled_at',
          'disabled_reason',
          'created_at',
          'updated_at',
        ],
        ['text', 'text', 'text', 'text', 'boolean', 'bigint', 'text', 'bigint', 'bigint'],
        webhooks.map((w) => ({ ...w, extra_events: w.extra_events === 1 })),
      );
      const deliveries = all<Record<string, unknown>>(
        'SELECT d.*, b.body FROM deliveries d LEFT JOIN delivery_bodies b ON b.delivery_id = d.id ORDER BY d.rowid',
      );
      await insertRows(
        db,
        'deliveries',
        [
          'id',
          'site_id',
          'slug',
          'event',
          'origin',
          'state',
          'attempts',
          'next_attempt_at',
          'created_at',
          'settled_at',
          'last_status',
          'last_error',
          'reply_url',
          'reply_id',
        ],
        [
          'text',
          'text',
          'text',
          'text',
          'text',
          'text',
          'int',
          'bigint',
          'bigint',
          'bigint',
          'int',
          'text',
          'text',
          'text',
        ],
        deliveries,
      );
      await insertRows(
        db,
        'delivery_bodies',
        ['delivery_id', 'body'],
        ['text', 'bytea'],
        deliveries.map((d) => ({ delivery_id: d.id, body: d.body ?? Buffer.alloc(0) })),
      );
      // In their order: the log's newest-first tie-break is the attempt's id.
      const attempts = all<Record<string, unknown>>(
        'SELECT delivery_id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, redirect_to FROM attempts ORDER BY id',
      );
      await insertRows(
        db,
        'attempts',
        [
          'delivery_id',
          'url',
          'started_at',
          'duration_ms',
          'status',
          'error',
          'error_kind',
          'reply_url',
          'reply_id',
          'redirect_to',
        ],
        ['text', 'text', 'bigint', 'int', 'int', 'text', 'text', 'text', 'text', 'text'],
        attempts,
      );
      // Page checks with what they found; a check that was running is due again (leases are not copied).
      const checkColumns = [
        'delivery_id',
        'site_id',
        'slug',
        'state',
        'plan',
        'delay_ms',
        'due_at',
        'tries',
        'checked_at',
        'code',
        'message',
        'fix',
        'url',
        'checks',
      ];
      await insertRows(
        db,
        'page_checks',
        checkColumns,
        [
          'text',
          'text',
          'text',
          'text',
          'text',
          'bigint',
          'bigint',
          'int',
          'bigint',
          'text',
          'text',
          'text',
          'text',
          'text',
        ],
        all(`SELECT ${checkColumns.join(', ')} FROM page_checks ORDER BY delivery_id`),
      );
      const sites = all<Record<string, unknown>>('SELECT * FROM published_sites');
      await insertRows(
        db,
        'published_sites',
        ['site_id', 'commit_sha', 'published_at', 'build_id', 'built_at'],
        ['text', 'text', 'bigint', 'text', 'bigint'],
        sites,
      );
      await insertRows(
        db,
        'published_articles',
        ['site_id', 'slug', 'state', 'payload_hash', 'item', 'changed_at'],
        ['text', 'text', 'text', 'text', 'text', 'bigint'],
        all('SELECT * FROM published_articles'),
      );
      // The change log with its positions and the store's identity: feed cursors stay valid.
      await insertRows(
        db,
        'article_changes',
        ['seq', 'site_id', 'slug', 'type', 'item', 'at'],
        ['bigint', 'text', 'text', 'text', 'text', 'bigint'],
        all('SELECT * FROM article_changes ORDER BY site_id, seq'),
      );
      await insertRows(
        db,
        'change_log_sites',
        ['site_id', 'newest', 'through'],
        ['text', 'bigint', 'bigint'],
        all('SELECT * FROM change_log_sites'),
      );
      await insertRows(
        db,
        'webhook_sent_sites',
        ['site_id', 'commit_sha', 'sent_at'],
        ['text', 'text', 'bigint'],
        all('SELECT * FROM webhook_sent_sites'),
      );
      await insertRows(
        db,
        'webhook_sent_articles',
        ['site_id', 'slug', 'state', 'payload_hash'],
        ['text', 'text', 'text', 'text'],
        all('SELECT * FROM webhook_sent_articles'),
      );
      // Raised, never lowered: a server that started on this database first has recorded its keys.json's.
      const generations = all<{ name: string; generation: number }>(
        'SELECT name, generation FROM key_generations ORDER BY name',
      );
      await createKeyGenerationRecords(db, describeUrl(url)).raise(
        Object.fromEntries(generations.map((g) => [g.name, g.generation])),
      );
      // A state restored from `quire state backup` and not opened since has none yet: this one's stays.
      const sqliteId = sqlite.prepare<[], { id: string }>('SELECT id FROM store_identity').get()?.id ?? null;
      await db.run('UPDATE store_identity SET id = coalesce($1, id), made_in = $2', [sqliteId, databaseKey]);
      return {
        webhooks: webhooks.length,
        deliveries: deliveries.length,
        attempts: attempts.length,
        sites: sites.length,
        keyGenerations: generations.length,
      };
    });
  } finally {
    sqlite.close();
    await pool.end();
  }
}

/** Two states are never merged: each has its own deliveries, change log and identity (its feed's cursors). */
async function refuseUnlessEmpty(db: Db, url: string): Promise<void> {
  const [held] = (await db.rows<{ webhooks: number; deliveries: number; sites: number }>(
    'SELECT (SELECT count(*) FROM webhooks)::int AS webhooks, (SELECT count(*) FROM deliveries)::int AS deliveries, (SELECT count(*) FROM published_sites)::int AS sites',
  )) as [{ webhooks: number; deliveries: number; sites: number }];
  if (held.webhooks + held.deliveries + held.sites === 0) return;
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  throw new StateStoreError(
    `the PostgreSQL state at ${describeUrl(url)} is not empty: nothing was copied (it holds ${n(held.webhooks, 'webhook', 'webhooks')}, ${n(held.deliveries, 'delivery', 'deliveries')}, ${n(held.sites, 'published site', 'published sites')}; ` +
      'two states are not merged into one: each has its own deliveries, change log and feed cursors). Copy into a new, empty database; ' +
      "or, to serve this state's sites from that one, register their webhooks and publish them there (receivers get each article once more, as published)",
  );
}

/** Inserts rows in chunks, one statement each (unnest of one array per column). */
async function insertRows(
  db: Db,
  table: string,
  columns: string[],
  types: string[],
  rows: Record<string, unknown>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const arrays = columns.map((c) => chunk.map((r) => r[c] ?? null));
    const params = types.map((t, j) => `$${j + 1}::${t}[]`).join(', ');
    await db.run(`INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${params})`, arrays);
  }
}
