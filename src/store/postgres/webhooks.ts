// Each site's webhook registration on PostgreSQL; the secret sealed as on SQLite (secret-box.ts).
import type { WebhookRecord } from '../records.ts';
import type { SecretBox } from '../secret-box.ts';
import type { Webhooks } from '../state-interface.ts';
import { secretHint } from '../sqlite/webhooks.ts';
import type { Db } from './connection.ts';

interface Row {
  site_id: string;
  url: string;
  secret_sealed: string;
  secret_hint: string;
  extra_events: boolean;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): WebhookRecord => ({
  siteId: r.site_id,
  url: r.url,
  secretHint: r.secret_hint,
  extraEvents: r.extra_events,
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createWebhooks(db: Db, box: SecretBox): Webhooks {
  const row = async (siteId: string, on: Db = db) =>
    (await on.rows<Row>('SELECT * FROM webhooks WHERE site_id = $1', [siteId]))[0] ?? null;
  return {
    async get(siteId) {
      const r = await row(siteId);
      return r ? toRecord(r) : null;
    },
    async list() {
      return (await db.rows<Row>('SELECT * FROM webhooks ORDER BY site_id')).map(toRecord);
    },
    async secretOf(siteId) {
      const r = await row(siteId);
      return r ? box.open(siteId, r.secret_sealed) : null;
    },
    save(siteId, change, now) {
      return db.atomically(async (tx) => {
        const existing = await row(siteId, tx);
        if (!existing && change.secret === undefined) throw new Error(`a new webhook for ${siteId} needs a secret`);
        const sealed = change.secret !== undefined ? box.seal(siteId, change.secret) : existing!.secret_sealed;
        const hint = change.secret !== undefined ? secretHint(change.secret) : existing!.secret_hint;
        const extra = change.extraEvents ?? (existing ? existing.extra_events : false);
        const [saved] = await tx.rows<Row>(
          `INSERT INTO webhooks (site_id, url, secret_sealed, secret_hint, extra_events, disabled_at, disabled_reason, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $6)
           ON CONFLICT (site_id) DO UPDATE SET url = excluded.url, secret_sealed = excluded.secret_sealed,
             secret_hint = excluded.secret_hint, extra_events = excluded.extra_events,
             disabled_at = NULL, disabled_reason = NULL, updated_at = excluded.updated_at
           RETURNING *`,
          [siteId, change.url, sealed, hint, extra, now],
        );
        return toRecord(saved!);
      });
    },
    async remove(siteId) {
      return (await db.run('DELETE FROM webhooks WHERE site_id = $1', [siteId])) > 0;
    },
    async disable(siteId, reason, now) {
      await db.run('UPDATE webhooks SET disabled_at = $1, disabled_reason = $2, updated_at = $1 WHERE site_id = $3', [
        now,
        reason,
        siteId,
      ]);
    },
  };
}
