// One request of a conformance check, sent as a delivery is (the same headers, client, time-out
// and reply cap) but with each credential right or wrong as the rule needs: the Bearer token, and
// the signatures (X-Quire-Signature and webhook-signature), made over the bytes sent or others.
import { randomBytes } from 'node:crypto';
import type { AttemptOutcome } from '../../delivery/attempt-outcome.ts';
import { classifyExchange } from '../../delivery/classify-attempt.ts';
import { explainOutcome, type Explanation } from '../../delivery/explain-attempt.ts';
import { MAX_REPLY_BYTES } from '../../delivery/receiver-reply.ts';
import { deliveryHeaders } from '../../delivery/signing.ts';
import type { SafeClient } from '../../net/safe-client.ts';

export interface Target {
  client: SafeClient;
  url: string;
  secret: string;
  /** A secret the receiver cannot know, for the wrong credentials. */
  wrongSecret: string;
  timeoutMs: number;
  now: () => number;
}

export interface TestRequest {
  event: string;
  body: Buffer;
  deliveryId: string;
  timestampSec: number;
  attempt?: number;
  bearer: 'right' | 'wrong';
  signature: 'right' | 'wrong';
  /** The bytes the signatures cover, when not the body sent (a body altered after signing). */
  signedBody?: Buffer;
}

export interface Sent {
  outcome: AttemptOutcome;
  /** In the catalogue's words, as Test connection says it (never retried). */
  explanation: Explanation;
  durationMs: number;
}

/** A secret for the wrong credentials: as long as a generated one, never the receiver's. */
export const makeWrongSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export async function sendTestRequest(target: Target, r: TestRequest): Promise<Sent> {
  const headers = deliveryHeaders({
    body: r.signedBody ?? r.body,
    secret: r.signature === 'right' ? target.secret : target.wrongSecret,
    event: r.event,
    deliveryId: r.deliveryId,
    timestampSec: r.timestampSec,
    attempt: r.attempt ?? 1,
  });
  headers.Authorization = `Bearer ${r.bearer === 'right' ? target.secret : target.wrongSecret}`;
  const res = await target.client.request(target.url, {
    method: 'POST',
    headers,
    body: r.body,
    timeoutMs: target.timeoutMs,
    maxResponseBytes: MAX_REPLY_BYTES,
  });
  const outcome = classifyExchange(res, target.now());
  const durationMs = Math.round(res.durationMs);
  return { outcome, explanation: explainOutcome(outcome, { willRetry: false, durationMs }), durationMs };
}

export const accepted = (s: Sent): boolean => s.outcome.kind === 'delivered';

/** The HTTP status of the answer, or null when there was none. */
export const statusOf = (s: Sent): number | null =>
  s.outcome.kind === 'delivered' || s.outcome.kind === 'http_failure' || s.outcome.kind === 'redirect'
    ? s.outcome.status
    : null;

/** `HTTP 401`, or why there was no answer. */
export const answerOf = (s: Sent): string => {
  const status = statusOf(s);
  return status === null ? `no answer (${s.explanation.message})` : `HTTP ${status}`;
};
