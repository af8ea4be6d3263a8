// Each site's webhook registration. The secret is sealed at rest and only ever read back to sign.
import type { WebhookRecord } from '../records.ts';
import type { SecretBox } from '../secret-box.ts';
import type { Webhooks } from '../state-interface.ts';
import type { Synchronous } from './serialized.ts';
import type { StateDb } from './database.ts';

interface Row {
  site_id: string;
  url: string;
  secret_sealed: string;
  secret_hint: string;
  extra_events: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export const secretHint = (secret: string): string => `…${secret.slice(-4)}`;

export function createWebhookStore(db: StateDb, box: SecretBox): Synchronous<Webhooks> {
  const byId = db.prepare<[string], Row>('SELECT * FROM webhooks WHERE site_id = ?');
  const all = db.prepare<[], Row>('SELECT * FROM webhooks ORDER BY site_id');
  const toRecord = (r: Row): WebhookRecord => ({
    siteId: r.site_id,
    url: r.url,
    secretHint: r.secret_hint,
    extraEvents: r.extra_events === 1,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

  return {
    get(siteId: string): WebhookRecord | null {
      const row = byId.get(siteId);
      return row ? toRecord(row) : null;
    },
    list(): WebhookRecord[] {
      return all.all().map(toRecord);
    },
    /** The plain secret, for signing a request. */
    secretOf(siteId: string): string | null {
      const row = byId.get(siteId);
      return row ? box.open(siteId, row.secret_sealed) : null;
    },
    /** Creates or replaces the registration; saving re-enables a webhook disabled by a 410. */
    save(siteId, change, now) {
      const existing = byId.get(siteId);
      if (!existing && change.secret === undefined) throw new Error(`a new webhook for ${siteId} needs a secret`);
      const sealed = change.secret !== undefined ? box.seal(siteId, change.secret) : existing!.secret_sealed;
      const hint = change.secret !== undefined ? secretHint(change.secret) : existing!.secret_hint;
      const extra = change.extraEvents ?? (existing ? existing.extra_events === 1 : false);
      db.prepare(
        `INSERT INTO webhooks (site_id, url, secret_sealed, secret_hint, extra_events, disabled_at, disabled_reason, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?)
         ON CONFLICT (site_id) DO UPDATE SET url = excluded.url, secret_sealed = excluded.secret_sealed,
           secret_hint = excluded.secret_hint, extra_events = excluded.extra_events,
           disabled_at = NULL, disabled_reason = NULL, updated_at = excluded.updated_at`,
      ).run(siteId, change.url, sealed, hint, extra ? 1 : 0, now, now);
      return toRecord(byId.get(siteId)!);
    },
    remove(siteId: string): boolean {
      return db.prepare('DELETE FROM webhooks WHERE site_id = ?').run(siteId).changes > 0;
    },
    disable(siteId: string, reason: string, now: number): void {
      db.prepare('UPDATE webhooks SET disabled_at = ?, disabled_reason = ?, updated_at = ? WHERE site_id = ?').run(
        now,
        reason,
        now,
        siteId,
      );
    },
  };
}
