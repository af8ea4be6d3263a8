// Turns what Node throws during an outbound request into one of a few kinds with a message in
// plain words, so callers can decide (retry or not) and show the reason without reading errnos.
import type { RefusalKind } from './target-url.ts';

/** Why an exchange got no answer: the target policy refused it (named after its code), or the network failed. */
export type NetErrorKind = RefusalKind | NetworkFailureKind | 'timeout';

/** What the network did: no name, a refused or reset connection, a failed handshake, or another error. */
export type NetworkFailureKind = 'dns' | 'refused' | 'reset' | 'tls' | 'network';

/**
 * A failure we raise ourselves (refused address, timeout); carries its kind through Node's error
 * paths (a socket's destroy, a lookup's callback) to describeNetError, which makes it data. Not a
 * problem (ProblemError): it never leaves src/net/ as a thrown error.
 */
export class NetFailure extends Error {
  readonly kind: NetErrorKind;
  constructor(kind: NetErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NetFailure';
    this.kind = kind;
  }
}

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

// OpenSSL verification results as Node reports them in `err.code`.
const CERT_HINTS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in an untrusted self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted authority (or the chain is incomplete)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'the certificate is not signed by a trusted authority (or the chain is incomplete)',
  UNABLE_TO_GET_ISSUER_CERT: 'the certificate issuer is unknown',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not cover this host name',
  HOSTNAME_MISMATCH: 'the certificate does not cover this host name',
  CERT_REVOKED: 'the certificate has been revoked',
  CERT_UNTRUSTED: 'the certificate is not trusted',
  CERT_REJECTED: 'the certificate was rejected',
  CERT_SIGNATURE_FAILURE: 'the certificate signature is invalid',
  INVALID_CA: 'an issuing certificate is not a valid CA',
  PATH_LENGTH_EXCEEDED: 'the certificate chain is too long',
  CERT_CHAIN_TOO_LONG: 'the certificate chain is too long',
  INVALID_PURPOSE: 'the certificate is not meant for TLS servers',
};

const isTlsCode = (code: string) => code in CERT_HINTS || /^(ERR_TLS_|ERR_SSL_)/.test(code);

/** `host` is what the user wrote (for messages); `error` is whatever reached the request's 'error'. */
export function describeNetError(error: unknown, host: string): { kind: NetErrorKind; message: string } {
  if (error instanceof NetFailure) return { kind: error.kind, message: error.message };
  const e = error as NodeJS.ErrnoException & { library?: string; reason?: string };
  const code = typeof e?.code === 'string' ? e.code : '';
  const detail = e?.message ?? String(error);
  if (DNS_CODES.has(code)) return { kind: 'dns', message: `${host} could not be resolved (${code})` };
  if (code === 'ECONNREFUSED') return { kind: 'refused', message: `${host} refused the connection (ECONNREFUSED)` };
  if (code === 'ETIMEDOUT') return { kind: 'timeout', message: `connecting to ${host} timed out (ETIMEDOUT)` };
  if (isTlsCode(code) || e?.library === 'SSL routines') {
    const hint = CERT_HINTS[code] ?? e?.reason ?? detail;
    return { kind: 'tls', message: `the TLS handshake with ${host} failed: ${hint} (${code || 'TLS'})` };
  }
  if (RESET_CODES.has(code)) return { kind: 'reset', message: `${host} closed the connection unexpectedly (${code})` };
  return { kind: 'network', message: `network error talking to ${host}: ${detail}${code ? ` (${code})` : ''}` };
}
