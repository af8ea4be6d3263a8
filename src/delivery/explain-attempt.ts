// Plain words for what happened to a delivery attempt, and what to do about it: shown by
// `webhook test`, the web app's Test connection and the MCP test_webhook tool.
import type { CodeIn } from '../problems/catalogue.ts';
import type { Problem } from '../problems/problem.ts';
import { attemptErrorText, type AttemptRecord } from '../store/state-store.ts';
import { redirectTargetOf } from './deliver.ts';

/** A URL that can never be reached as saved is reported with the same code as when saving it. */
export type ExplanationCode = CodeIn<'delivery'> | 'URL_INVALID';

/** The problem (or DELIVERED) with a stable code for tools and tests. */
export interface Explanation extends Problem<ExplanationCode> {
  ok: boolean;
}

/**
 * `willRetry`: whether this delivery gets another attempt on its own. A Test connection is sent
 * once, so its explanation must not promise retries.
 */
export function explainAttempt(a: AttemptRecord, { willRetry }: { willRetry: boolean }): Explanation {
  const ms = `${a.durationMs} ms`;
  const afterThis = willRetry ? '' : ' This attempt is not retried: send it again once the receiver is fixed.';
  if (a.status !== null) {
    const s = a.status;
    if (s >= 200 && s < 300) {
      const where = a.replyUrl ? ` It says the article is at ${a.replyUrl}${a.replyId ? ` (id ${a.replyId})` : ''}.` : '';
      const note = a.error ? ` Note: ${a.error}.` : '';
      return { ok: true, code: 'DELIVERED', message: `Success: the receiver accepted the delivery with HTTP ${s} in ${ms}.${where}${note}` };
    }
    if (s === 401 || s === 403) {
      return { ok: false, code: 'REJECTED_SECRET', message: `The receiver rejected the secret or signature (HTTP ${s}). Make sure it uses the same secret as saved here, and computes the HMAC over the raw request body, not re-serialized JSON.` };
    }
    if (s >= 300 && s < 400) {
      const target = redirectTargetOf(a.error);
      return { ok: false, code: 'REDIRECT', message: `The receiver answered with a redirect (HTTP ${s}${target ? ` to ${target}` : ''}). Redirects are not followed and the secret is not forwarded: save the final URL as the webhook URL.` };
    }
    if (s === 404 || s === 405) return { ok: false, code: 'NOT_FOUND', message: `The receiver has no endpoint for POST at this URL (HTTP ${s}). Check the path.` };
    if (s === 410) return { ok: false, code: 'GONE', message: 'The receiver answered 410 Gone, so the webhook was disabled. Save it again to re-enable it.' };
    if (s === 429) return { ok: false, code: 'RATE_LIMITED', message: `The receiver is rate-limiting (HTTP 429).${willRetry ? ' This delivery is retried after the time it asks for.' : ' This attempt is not retried: send it again later.'}` };
    if (s >= 500) return { ok: false, code: 'RECEIVER_ERROR', message: `The receiver failed with HTTP ${s}. Check its logs.${willRetry ? ' This delivery is retried with backoff.' : afterThis}` };
    return { ok: false, code: 'REJECTED', message: `The receiver refused the delivery with HTTP ${s}. ${a.error ?? ''}`.trim() };
  }
  const detail = a.error ?? 'unknown error';
  switch (a.errorKind) {
    case 'non_public':
      return { ok: false, code: 'TARGET_NOT_PUBLIC', message: `Refused before connecting: ${detail}. Webhook receivers must be reachable on a public address.` };
    case 'dns':
      return { ok: false, code: 'DNS_FAILED', message: `The host name could not be resolved (${detail}). Check the URL for typos and that its DNS record exists.` };
    case 'refused':
      return { ok: false, code: 'CONNECTION_REFUSED', message: `The connection was refused (${detail}). Nothing is listening at that host and port; check that the receiver is running.` };
    case 'timeout':
      return { ok: false, code: 'TIMEOUT', message: `No answer in time (${detail}). The receiver must reply within the time-out; do slow work after answering.` };
    case 'tls':
      return { ok: false, code: 'TLS_FAILED', message: `The TLS handshake failed (${detail}). The receiver needs a valid certificate for its host name from a public certificate authority.` };
    case 'reset':
      return { ok: false, code: 'CONNECTION_RESET', message: `The connection was closed before an answer (${detail}).` };
    case 'not_https':
    case 'credentials':
    case 'url_invalid':
      return { ok: false, code: 'URL_INVALID', message: `${detail}. Save a valid https URL.` };
    default:
      return { ok: false, code: 'NETWORK_ERROR', message: `The request failed: ${attemptErrorText(a) ?? 'unknown error'}.` };
  }
}
