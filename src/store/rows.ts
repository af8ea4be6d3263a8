// A delivery's and an attempt's row as both SQL stores name their columns, and the record each
// becomes (records.ts): one mapping, whichever database the row came from.
import type { NetErrorKind } from '../net/net-errors.ts';
import type { AttemptLogEntry, Delivery, DeliveryOrigin, DeliveryState } from './records.ts';
import { verificationOf, type PageCheckColumns } from './page-check-rows.ts';

export interface DeliveryRow {
  id: string;
  site_id: string;
  slug: string;
  event: string;
  origin: DeliveryOrigin;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  settled_at: number | null;
  last_status: number | null;
  last_error: string | null;
  reply_url: string | null;
  reply_id: string | null;
}

export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  siteId: r.site_id,
  slug: r.slug,
  event: r.event,
  origin: r.origin,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  settledAt: r.settled_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  replyUrl: r.reply_url,
  replyId: r.reply_id,
});

/** An attempt joined with its delivery's facts and page check (the attempt log). */
export interface AttemptRow extends PageCheckColumns {
  delivery_id: string;
  site_id: string;
  slug: string;
  event: string;
  origin: DeliveryOrigin;
  delivery_state: DeliveryState;
  url: string;
  started_at: number;
  duration_ms: number;
  status: number | null;
  error: string | null;
  error_kind: NetErrorKind | null;
  reply_url: string | null;
  reply_id: string | null;
  redirect_to: string | null;
}

export const toAttemptLogEntry = (r: AttemptRow): AttemptLogEntry => ({
  deliveryId: r.delivery_id,
  siteId: r.site_id,
  slug: r.slug,
  event: r.event,
  origin: r.origin,
  deliveryState: r.delivery_state,
  url: r.url,
  startedAt: r.started_at,
  durationMs: r.duration_ms,
  status: r.status,
  error: r.error,
  errorKind: r.error_kind,
  replyUrl: r.reply_url,
  replyId: r.reply_id,
  redirectTo: r.redirect_to,
  verification: verificationOf(r, r.delivery_state),
});

/** The outbox's figures for DeliveryStats (besides the counts per state), in either store's parameter syntax. */
export const statsQuery = (now: string, since: string) => `
  SELECT (SELECT min(created_at) FROM deliveries WHERE state = 'pending') AS oldest,
         (SELECT count(*) FROM deliveries WHERE state = 'pending' AND lease_until > ${now}) AS in_flight,
         (SELECT count(DISTINCT lease_owner) FROM deliveries WHERE state = 'pending' AND lease_until > ${now}) AS senders,
         (SELECT count(*) FROM attempts WHERE started_at >= ${since} AND status BETWEEN 200 AND 299) AS delivered,
         (SELECT count(*) FROM attempts WHERE started_at >= ${since} AND (status IS NULL OR status NOT BETWEEN 200 AND 299)) AS failed`;

export interface StatsRow {
  oldest: number | null;
  in_flight: number;
  senders: number;
  delivered: number;
  failed: number;
}
