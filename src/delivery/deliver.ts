// One delivery attempt: sign the stored bytes, send them through the SSRF-safe client, and read
// what happened as an attempt record and a retry decision.
import type { HttpOutcome, SafeClient } from '../net/safe-client.ts';
import type { AttemptRecord, ClaimedDelivery } from '../store/state-store.ts';
import { deliveryHeaders } from './signing.ts';
import { classifyStatus, type Outcome } from './retry-policy.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** A receiver's reply is a small JSON object; anything larger is cut off unread. */
export const MAX_REPLY_BYTES = 64 * 1024;

export interface AttemptResult {
  attempt: AttemptRecord;
  outcome: Outcome;
  /** A short reason in plain words, for summaries and the web app. */
  summary: string;
  /** What kind of failure, as a code for logs (`timeout`, `http_503`, `redirect`); null when delivered. */
  errorKind: string | null;
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
  const base = { url: target.url, startedAt: opts.now, durationMs: Math.round(res.durationMs) };
  if (!res.ok) {
    return {
      attempt: { ...base, status: null, error: res.message, errorKind: res.kind, replyUrl: null, replyId: null },
      outcome: isPermanent(res.kind) ? { kind: 'fail', disable: false } : { kind: 'retry', retryAfterMs: null },
      summary: res.message,
      errorKind: res.kind,
    };
  }
  return readResponse(res, base, opts.now);
}

/** A target that can never be reached as registered; retrying cannot help until it is changed. */
const isPermanent = (kind: string) => kind === 'url_invalid' || kind === 'not_https' || kind === 'credentials';

function readResponse(res: Extract<HttpOutcome, { ok: true }>, base: Pick<AttemptRecord, 'url' | 'startedAt' | 'durationMs'>, now: number): AttemptResult {
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const outcome = classifyStatus(res.status, header('retry-after'), now);
  if (outcome.kind === 'success') {
    const reply = parseReply(res.body, res.truncated);
    return {
      attempt: { ...base, status: res.status, error: reply.note, errorKind: null, replyUrl: reply.url, replyId: reply.id },
      outcome,
      summary: reply.url ? `delivered; the receiver placed it at ${reply.url}` : 'delivered',
      errorKind: null,
    };
  }
  const error = res.status >= 300 && res.status < 400
    ? redirectError(res.status, header('location'))
    : `HTTP ${res.status}${res.status === 410 ? ': the receiver is gone; webhook disabled' : ''}${bodySnippet(res.body)}`;
  const errorKind = res.status >= 300 && res.status < 400 ? 'redirect' : `http_${res.status}`;
  return { attempt: { ...base, status: res.status, error, errorKind: null, replyUrl: null, replyId: null }, outcome, summary: error, errorKind };
}

const MAX_LOCATION_CHARS = 300;

/** How a 3xx is recorded in an attempt's error; `redirectTargetOf` reads it back. */
export function redirectError(status: number, unsafeLocation: string | undefined): string {
  const location = unsafeLocation?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_LOCATION_CHARS);
  return `redirect (${status}${location ? ` to ${location}` : ''}) not followed: register the final URL`;
}

/** Where a recorded redirect pointed, or null. */
export function redirectTargetOf(error: string | null): string | null {
  return error?.match(/^redirect \(\d{3} to (.+)\) not followed/)?.[1] ?? null;
}

/** The optional `{url, id}` reply (spec 2.5); anything else is noted and ignored. */
export function parseReply(body: Buffer, truncated: boolean): { url: string | null; id: string | null; note: string | null } {
  const none = (note: string | null) => ({ url: null, id: null, note });
  if (body.length === 0) return none(null);
  if (truncated) return none(`reply ignored: larger than ${MAX_REPLY_BYTES} bytes`);
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return none('reply ignored: not JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return none('reply ignored: not a {url, id} object');
  const { url, id } = data as Record<string, unknown>;
  if (typeof url !== 'string' || typeof id !== 'string' || id.length > 1000) return none('reply ignored: url and id must be strings');
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return none('reply ignored: url is not http(s)');
    return { url: parsed.href, id, note: null };
  } catch {
    return none('reply ignored: url is not an absolute URL');
  }
}

function bodySnippet(body: Buffer): string {
  const text = body.toString('utf8', 0, 200).replace(/\s+/g, ' ').trim();
  return text ? ` — ${text}${body.length > 200 ? '…' : ''}` : '';
}
