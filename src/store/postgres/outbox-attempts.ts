// Attempts on PostgreSQL: recorded in one statement however many there are (each attempt's row,
// its delivery's new state, both leases given back, an acknowledged one's page check made due),
// and the attempt log.
import { attemptErrorText } from '../records.ts';
import { PAGE_CHECK_COLUMNS } from '../page-check-rows.ts';
import { toAttemptLogEntry, type AttemptRow } from '../rows.ts';
import type { Outbox } from '../state-interface.ts';
import { prepared, type Db } from './connection.ts';
import { ACKNOWLEDGED_CHECKS } from './page-checks.ts';

/**
 * Attempts recorded, as one statement: each attempt's row; the delivery's new state (the
 * verdict's, unless it was superseded meanwhile: it stays so), its lease and its slug's lease
 * given back; an acknowledged one's page check made due. The ids are distinct.
 */
const RECORD_ATTEMPTS = prepared(
  'record_attempts',
  `
  WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::text[])
      AS v(id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, error_text, state, next_at, at, redirect_to)
  ), attempt_rows AS (
    INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, redirect_to)
    SELECT id, url, started_at, duration_ms, status, error, error_kind, reply_url, reply_id, redirect_to FROM v
  ), settled AS (
    UPDATE deliveries d SET attempts = d.attempts + 1, last_status = v.status, last_error = v.error_text,
      reply_url = COALESCE(v.reply_url, d.reply_url), reply_id = COALESCE(v.reply_id, d.reply_id),
      state = CASE WHEN d.state = 'pending' THEN v.state ELSE d.state END,
      next_attempt_at = CASE WHEN d.state = 'pending' AND v.state = 'pending' THEN v.next_at ELSE NULL END,
      settled_at = CASE WHEN d.state = 'pending' AND v.state <> 'pending' THEN v.at ELSE d.settled_at END,
      lease_until = NULL, lease_owner = NULL
    FROM v WHERE d.id = v.id
  )${ACKNOWLEDGED_CHECKS}
  DELETE FROM slug_leases WHERE delivery_id IN (SELECT id FROM v)`,
);

type Attempts = Pick<Outbox, 'recordAttempt' | 'recordAttempts' | 'attemptLog'>;

export function createAttempts(db: Db): Attempts {
  const attempts: Attempts = {
    recordAttempt(id, attempt, verdict, now) {
      return attempts.recordAttempts([{ id, attempt, verdict, now }]);
    },

    // One statement for the lot, whatever its size; a delivery listed twice is applied in order.
    async recordAttempts(records) {
      if (!records.length) return;
      const ids = new Set(records.map((r) => r.id));
      if (ids.size < records.length) {
        for (const r of records) await attempts.recordAttempts([r]);
        return;
      }
      const col = <T>(f: (r: (typeof records)[number]) => T) => records.map(f);
      await db.run(RECORD_ATTEMPTS, [
        col((r) => r.id),
        col((r) => r.attempt.url),
        col((r) => r.attempt.startedAt),
        col((r) => Math.round(r.attempt.durationMs)),
        col((r) => r.attempt.status),
        col((r) => r.attempt.error),
        col((r) => r.attempt.errorKind ?? null),
        col((r) => r.attempt.replyUrl),
        col((r) => r.attempt.replyId),
        col((r) => attemptErrorText(r.attempt)),
        col((r) => r.verdict.state),
        col((r) => (r.verdict.state === 'pending' ? r.verdict.nextAttemptAt : null)),
        col((r) => r.now),
        col((r) => r.attempt.redirectTo ?? null),
      ]);
    },

    async attemptLog(opts = {}) {
      const rows = await db.rows<AttemptRow>(
        `SELECT a.*, d.site_id, d.slug, d.event, d.origin, d.state AS delivery_state, ${PAGE_CHECK_COLUMNS} FROM attempts a
         JOIN deliveries d ON d.id = a.delivery_id LEFT JOIN page_checks pc ON pc.delivery_id = a.delivery_id
         WHERE ($1::text IS NULL OR d.site_id = $1) ORDER BY a.started_at DESC, a.id DESC LIMIT $2`,
        [opts.siteId ?? null, opts.limit ?? 200],
      );
      return rows.map(toAttemptLogEntry);
    },
  };
  return attempts;
}
