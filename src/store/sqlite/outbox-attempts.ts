// Attempts on SQLite: each attempt's row and its delivery's new state (an acknowledged one's page
// check made due), many in one transaction, and the attempt log.
import { attemptErrorText, type AttemptLogEntry, type AttemptRecord, type AttemptVerdict } from '../records.ts';
import { PAGE_CHECK_COLUMNS } from '../page-check-rows.ts';
import { toAttemptLogEntry, type AttemptRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { PageCheckWrites } from './page-checks.ts';
import type { Synchronous } from './serialized.ts';

type Attempts = Pick<Synchronous<Outbox>, 'recordAttempt' | 'recordAttempts' | 'attemptLog'>;

export function createAttempts(db: StateDb, checks: PageCheckWrites): Attempts {
  // Positional parameters: binding by position is cheaper than by name, and these two run for
  // every attempt.
  const insertAttempt = db.prepare<
    [
      string,
      string,
      number,
      number,
      number | null,
      string | null,
      string | null,
      string | null,
      string | null,
      string | null,
    ]
  >(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, redirect_to)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The new state: the verdict's, unless the delivery was superseded meanwhile (it stays so).
  const settle = db.prepare<
    [number | null, string | null, string | null, string | null, string, string, number | null, string, number, string]
  >(
    `UPDATE deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
       reply_url = COALESCE(?, reply_url), reply_id = COALESCE(?, reply_id),
       state = CASE WHEN state = 'pending' THEN ? ELSE state END,
       next_attempt_at = CASE WHEN state = 'pending' AND ? = 'pending' THEN ? ELSE NULL END,
       settled_at = CASE WHEN state = 'pending' AND ? <> 'pending' THEN ? ELSE settled_at END,
       lease_until = NULL, lease_owner = NULL
     WHERE id = ?`,
  );

  const attempts: Attempts = {
    recordAttempt(id: string, attempt: AttemptRecord, verdict: AttemptVerdict, now: number): void {
      attempts.recordAttempts([{ id, attempt, verdict, now }]);
    },

    // One transaction for the lot: one commit instead of one per delivery.
    recordAttempts(records: { id: string; attempt: AttemptRecord; verdict: AttemptVerdict; now: number }[]): void {
      db.transaction(() => {
        for (const { id, attempt: a, verdict, now } of records) {
          insertAttempt.run(
            id,
            a.url,
            a.startedAt,
            a.durationMs,
            a.status,
            a.error,
            a.errorKind ?? null,
            a.replyUrl,
            a.replyId,
            a.redirectTo ?? null,
          );
          const { state } = verdict;
          settle.run(
            a.status,
            attemptErrorText(a),
            a.replyUrl,
            a.replyId,
            state,
            state,
            state === 'pending' ? verdict.nextAttemptAt : null,
            state,
            now,
            id,
          );
          if (state === 'delivered') checks.acknowledged(id, now);
        }
      }).immediate();
    },

    attemptLog(opts: { siteId?: string | null; limit?: number } = {}): AttemptLogEntry[] {
      return db
        .prepare<{ site: string | null; limit: number }, AttemptRow>(
          `SELECT a.*, d.site_id, d.slug, d.event, d.origin, d.state AS delivery_state, ${PAGE_CHECK_COLUMNS} FROM attempts a
           JOIN deliveries d ON d.id = a.delivery_id LEFT JOIN page_checks pc ON pc.delivery_id = a.delivery_id
           WHERE (@site IS NULL OR d.site_id = @site) ORDER BY a.started_at DESC, a.id DESC LIMIT @limit`,
        )
        .all({ site: opts.siteId ?? null, limit: opts.limit ?? 200 })
        .map(toAttemptLogEntry);
    },
  };
  return attempts;
}
