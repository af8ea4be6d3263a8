// What a client call fails with: typed errors told apart by `kind`; an API error carries the API's
// stable `code`, so callers branch on the code, never on a message. No Node built-ins here (see index.ts).
// Plain Errors, not Quire's ProblemError: they are thrown in site owners' code, and `quire/client`
// takes nothing of Quire but the contract's types (a dependency rule).
import type { ApiErrorCode } from '../contract/error-codes.ts';

/** The Content API answered with an error (`{"error": {status, code, message}}`), or with something that is not the API's answer. */
export class QuireApiError extends Error {
  readonly kind = 'api' as const;
  /** The API's code; null when the body was not the API's error shape (e.g. a proxy's 502 page). */
  readonly code: ApiErrorCode | null;
  readonly status: number;
  /** Seconds to wait before trying again (`Retry-After`, sent with 503 CONTENT_UNAVAILABLE and COMPRESSION_BUSY); null when not sent. */
  readonly retryAfter: number | null;
  constructor(code: ApiErrorCode | null, status: number, message: string, retryAfter: number | null = null) {
    super(`${code ?? 'HTTP'} (${status}): ${message}`);
    this.name = 'QuireApiError';
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/**
 * 410 CURSOR_EXPIRED: the cursor is older than the change history the server keeps (or from a
 * state store started over). Resync: read the feed without `since` (the whole current state)
 * and follow its cursor.
 */
export class QuireCursorExpiredError extends QuireApiError {
  constructor(status: number, message: string) {
    super('CURSOR_EXPIRED', status, message);
    this.name = 'QuireCursorExpiredError';
  }
}

/** The request never got an answer: DNS, refused connection, TLS, a reset, an aborted fetch. */
export class QuireNetworkError extends Error {
  readonly kind = 'network' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QuireNetworkError';
  }
}

/** `articles()` saw the list change under it again and again while paging, and gave up rather than skip or repeat an article. */
export class QuireListChangedError extends Error {
  readonly kind = 'list-changed' as const;
  constructor(message: string) {
    super(message);
    this.name = 'QuireListChangedError';
  }
}

export type QuireError = QuireApiError | QuireNetworkError | QuireListChangedError;

export function isQuireError(err: unknown): err is QuireError {
  return err instanceof QuireApiError || err instanceof QuireNetworkError || err instanceof QuireListChangedError;
}
