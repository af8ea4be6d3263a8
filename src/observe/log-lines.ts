// Operator log lines: one per API request and one per delivery attempt, as text or JSON lines.
// Every string is made printable (control characters escaped) and every secret-looking query
// parameter is masked before a line is formatted; keys, secrets and tokens never reach a line.
import { printable } from '../text/printable.ts';

export type LogFormat = 'text' | 'json';

export interface RequestLine {
  method: string;
  /** The request target as received; masked here. */
  unsafePath: string;
  status: number;
  ms: number;
  bytes: number | null;
  site: string | null;
}

export interface DeliveryLine {
  delivery: string;
  site: string;
  event: string;
  slug: string;
  attempt: number;
  /** delivered, retry (pending again) or failed. */
  result: string;
  status: number | null;
  /** What kind of failure, e.g. `timeout`, `http_503`; null when delivered. */
  errorKind: string | null;
  ms: number;
}

export interface Logger {
  request(line: RequestLine): void;
  delivery(line: DeliveryLine): void;
  /** Anything else the server reports (a build, an internal error), one line per call. */
  message(text: string): void;
  /** Writes what is gathered now (at shutdown: the process exits without another turn). */
  flush(): void;
}

const MAX_PATH_CHARS = 2048;
/** Query parameters whose values are never logged: `key` and anything that looks like a credential. */
const SECRET_PARAM = /key|token|secret|passw|auth|sig|session|credential|code/i;

/** The request target with every secret-looking query value replaced by `***`. */
export function maskQuery(unsafeTarget: string): string {
  const q = unsafeTarget.indexOf('?');
  if (q < 0) return unsafeTarget;
  const hash = unsafeTarget.indexOf('#', q);
  const query = unsafeTarget.slice(q + 1, hash < 0 ? undefined : hash);
  const masked = query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return SECRET_PARAM.test(decodedName(name)) ? `${name}=***` : part;
    })
    .join('&');
  return `${unsafeTarget.slice(0, q)}?${masked}`;
}

// Decoded as URLSearchParams decodes it, so `?%6Bey=…` is masked like `?key=…`.
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch (cause) {
    if (cause instanceof URIError) return name;
    throw cause;
  }
}

const clip = (s: string) => (s.length > MAX_PATH_CHARS ? `${s.slice(0, MAX_PATH_CHARS)}…` : s);
const safePath = (unsafePath: string) => printable(clip(maskQuery(unsafePath)));

export function formatRequest(format: LogFormat, time: string, l: RequestLine): string {
  const fields = {
    time,
    type: 'request',
    method: printable(l.method),
    path: safePath(l.unsafePath),
    status: l.status,
    ms: round(l.ms),
    bytes: l.bytes,
    site: l.site === null ? null : printable(l.site),
  };
  if (format === 'json') return JSON.stringify(fields);
  return `${time} ${fields.method} ${fields.path} ${l.status} ${fields.ms}ms ${l.bytes ?? '-'}B${fields.site ? ` site=${fields.site}` : ''}`;
}

export function formatDelivery(format: LogFormat, time: string, l: DeliveryLine): string {
  const fields = {
    time,
    type: 'delivery',
    delivery: printable(l.delivery),
    site: printable(l.site),
    event: printable(l.event),
    slug: printable(l.slug),
    attempt: l.attempt,
    result: l.result,
    status: l.status,
    error: l.errorKind === null ? null : printable(l.errorKind),
    ms: round(l.ms),
  };
  if (format === 'json') return JSON.stringify(fields);
  const outcome = `${fields.result}${l.status === null ? '' : ` ${l.status}`}${fields.error ? ` (${fields.error})` : ''}`;
  return `${time} delivery ${fields.delivery} site=${fields.site} ${fields.event} ${fields.slug} attempt=${l.attempt} ${outcome} ${fields.ms}ms`;
}

export function formatMessage(format: LogFormat, time: string, text: string): string {
  // Text lines keep their own line breaks (a stack trace); a JSON line holds them escaped.
  if (format === 'json') return JSON.stringify({ time, type: 'message', message: printable(text) });
  return text
    .split('\n')
    .map((line) => printable(line))
    .join('\n');
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** How long a line may wait to be written, and how much may wait: one write per batch, not per line. */
export const LOG_BATCH_MS = 50;
const LOG_BATCH_CHARS = 64 * 1024;

/**
 * A logger that writes whole lines through `write`, gathered for up to LOG_BATCH_MS or 64 KiB:
 * a write to stderr is a system call, and one per turn of the event loop cost a busy server much
 * of its rate (docs/benchmarks-log.md, "request log and metrics"). The server flushes at shutdown;
 * a crash can lose the last batch.
 */
export function createLogger({
  format,
  write,
  now = Date.now,
}: {
  format: LogFormat;
  write: (chunk: string) => void;
  now?: () => number;
}): Logger {
  let batch = '';
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const chunk = batch;
    batch = '';
    if (chunk) write(chunk);
  };
  const emit = (line: string) => {
    batch += `${line}\n`;
    if (batch.length >= LOG_BATCH_CHARS) flush();
    else timer ??= setTimeout(flush, LOG_BATCH_MS);
  };
  // A busy server logs many lines in the same millisecond: its timestamp is formatted once.
  let stampedMs = Number.NaN;
  let stamp = '';
  const time = () => {
    const ms = now();
    if (ms !== stampedMs) {
      stampedMs = ms;
      stamp = new Date(ms).toISOString();
    }
    return stamp;
  };
  return {
    request: (l) => emit(formatRequest(format, time(), l)),
    delivery: (l) => emit(formatDelivery(format, time(), l)),
    message: (text) => emit(formatMessage(format, time(), text)),
    flush,
  };
}
