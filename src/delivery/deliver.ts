// One delivery attempt: sign the stored bytes, send them through the SSRF-safe client, and read
// what happened (classify-attempt.ts) as its outcome and the attempt record kept of it.
import type { SafeClient } from '../net/safe-client.ts';
import type { AttemptRecord, ClaimedDelivery } from '../store/state-store.ts';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { attemptRecordOf } from './attempt-record.ts';
import { classifyExchange } from './classify-attempt.ts';
import { MAX_REPLY_BYTES } from './receiver-reply.ts';
import { deliveryHeaders } from './signing.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface AttemptResult {
  /** What is recorded of the attempt (made from its outcome). */
  attempt: AttemptRecord;
  outcome: AttemptOutcome;
}

export async function attemptDelivery(
  client: SafeClient,
  delivery: Pick<ClaimedDelivery, 'id' | 'event' | 'body' | 'attempts'>,
  target: { url: string; secret: string },
  opts: { now: number; timeoutMs?: number },
): Promise<AttemptResult> {
  const headers = deliveryHeaders({
    body: delivery.body,
    secret: target.secret,
    event: delivery.event,
    deliveryId: delivery.id,
    timestampSec: Math.floor(opts.now / 1000),
    attempt: delivery.attempts + 1,
  });
  const res = await client.request(target.url, {
    method: 'POST',
    headers,
    body: delivery.body,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxResponseBytes: MAX_REPLY_BYTES,
  });
  const outcome = classifyExchange(res, opts.now);
  return {
    attempt: attemptRecordOf({ url: target.url, startedAt: opts.now, durationMs: Math.round(res.durationMs) }, outcome),
    outcome,
  };
}
