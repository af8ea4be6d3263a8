// Outbound HTTPS (and, for site checks, HTTP) that cannot be pointed at private networks, for
// webhook delivery and site checks.
// The address check runs in each new socket's own `lookup` (guarded-lookup.ts), on the addresses it
// then connects to, so DNS rebinding gains nothing; IP-literal hosts skip lookup, so they are
// checked with the URL. node:https with one keep-alive agent per client: fetch() takes no
// connect-time hook, and was slower on loopback (docs/benchmarks-log.md, "figures first recorded
// in code comments").
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { sameAddress } from './address-policy.ts';
import { createGuardedLookup, resolvePublicAddresses, systemResolver, type Resolver } from './guarded-lookup.ts';
import { checkHost } from './host-policy.ts';
import { exchange, type HttpOutcome } from './https-exchange.ts';
import type { NetErrorKind } from './net-errors.ts';
import { WEBHOOK_TARGETS, type TargetPolicy } from './target-policy.ts';
import { bareHost, checkTargetUrl, REFUSAL_KINDS } from './target-url.ts';

export type { HttpOutcome } from './https-exchange.ts';
export type { NetErrorKind, NetworkFailureKind } from './net-errors.ts';
export type { Resolver } from './guarded-lookup.ts';

export interface SafeClientOptions {
  /** Development and tests only: allow loopback and private targets. Announced through `log`. */
  allowPrivate?: boolean;
  /** Replaces system DNS (tests); default dns.lookup with all answers. */
  resolver?: Resolver;
  /** Trust exactly this CA instead of Node's roots (in-process tests). At runtime use NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
  userAgent?: string;
  /** Where the allowPrivate warning goes; default process.emitWarning (stderr). */
  log?: (msg: string) => void;
  /** Per origin (host:port), as in https.Agent. Default 16. */
  maxSockets?: number;
  /** Which schemes, and how refusals name the targets. Default: webhook targets, https only. */
  policy?: TargetPolicy;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  /** `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are the client's and are ignored. */
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** One deadline for connect, TLS, response headers and body. Default 10 s. */
  timeoutMs?: number;
  /** Read at most this much of the body, then close and flag `truncated`. Default 64 KiB. */
  maxResponseBytes?: number;
}

export type ResolvePublicResult =
  | { ok: true; addresses: string[] }
  | { ok: false; kind: 'dns' | 'non_public'; message: string };

export interface SafeClient {
  /** Never rejects for network problems; any HTTP status (3xx included) is `ok: true`. */
  request(url: string, opts?: RequestOptions): Promise<HttpOutcome>;
  /** Save-time check of a URL's host (name or IP literal): it resolves, and every address is public. */
  resolvePublic(host: string): Promise<ResolvePublicResult>;
  /** Destroys the agent's sockets; later requests fail with kind 'network'. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_MAX_SOCKETS = 16;
const DEFAULT_USER_AGENT = 'Quire';
const MAX_ACCEPTED_TARGETS = 1024;
const CLIENT_OWNED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

export const ALLOW_PRIVATE_WARNING =
  'WARNING: SSRF protection is OFF (allowPrivate): outbound requests may reach loopback and private addresses. ' +
  'Use this only for local development and tests, never in production.';

export function createSafeClient({
  allowPrivate = false,
  resolver = systemResolver,
  ca,
  userAgent = DEFAULT_USER_AGENT,
  log = (msg) => process.emitWarning(msg, { code: 'QUIRE_ALLOW_PRIVATE' }),
  maxSockets = DEFAULT_MAX_SOCKETS,
  policy = WEBHOOK_TARGETS,
}: SafeClientOptions = {}): SafeClient {
  if (!Number.isInteger(maxSockets) || maxSockets < 1)
    throw new RangeError(`maxSockets must be a positive integer, got ${maxSockets}`);
  if (allowPrivate) log(ALLOW_PRIVATE_WARNING);

  const agent = new https.Agent({
    keepAlive: true,
    maxSockets,
    // Built once rather than per connection, from `ca` alone: Node's roots added to it would
    // lengthen every client's start (docs/benchmarks-log.md, "figures first recorded in code
    // comments"); production trusts extra CAs through NODE_EXTRA_CA_CERTS instead.
    ...(ca ? { secureContext: tls.createSecureContext({ ca }) } : {}),
  });
  // Plain http only where the policy allows it (a site being verified), never for webhooks.
  const httpAgent = policy.protocols.includes('http:') ? new http.Agent({ keepAlive: true, maxSockets }) : null;
  const verifiedSockets = new WeakSet<net.Socket>();
  // A webhook URL is checked once per client, not once per delivery: the check depends on the
  // string and allowPrivate alone, and parsing it (URL, IP literal) for every request cost a
  // sender part of its rate (docs/benchmarks-log.md, "2026-11-25: what changed, and why").
  // Refusals are not kept, so each one is reported afresh.
  const acceptedTargets = new Map<string, { url: URL; host: string }>();
  let closed = false;

  async function request(
    unsafeUrl: string,
    {
      method = 'GET',
      headers = {},
      body,
      timeoutMs = DEFAULT_TIMEOUT_MS,
      maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    }: RequestOptions = {},
  ): Promise<HttpOutcome> {
    const started = performance.now();
    const refuse = (kind: NetErrorKind, message: string): HttpOutcome => ({
      ok: false,
      kind,
      message,
      durationMs: performance.now() - started,
    });
    if (closed) return refuse('network', 'the HTTP client has been closed');
    let target = acceptedTargets.get(unsafeUrl);
    if (!target) {
      const checked = checkTargetUrl(unsafeUrl, { allowPrivate, policy });
      if (!checked.ok) return refuse(REFUSAL_KINDS[checked.code], checked.message);
      if (acceptedTargets.size >= MAX_ACCEPTED_TARGETS) acceptedTargets.clear();
      target = { url: checked.url, host: bareHost(checked.url) };
      acceptedTargets.set(unsafeUrl, target);
    }
    const { host } = target;
    // Addresses this request's sockets may connect to: the literal, or what its lookup approved.
    const approved: string[] = net.isIP(host) ? [host] : [];
    const lookup = createGuardedLookup({
      resolver,
      allowPrivate,
      mustBePublic: policy.mustBePublic,
      onApproved: (addresses) => approved.push(...addresses),
    });
    return exchange({
      url: target.url,
      host,
      agent: target.url.protocol === 'http:' && httpAgent ? httpAgent : agent,
      lookup,
      isApproved: (remote) => approved.some((a) => sameAddress(a, remote)),
      verifiedSockets,
      method,
      headers: outgoingHeaders(userAgent, headers, body),
      body,
      timeoutMs,
      maxResponseBytes,
      started,
    });
  }

  async function resolvePublic(unsafeHost: string): Promise<ResolvePublicResult> {
    const checked = checkHost(unsafeHost, { allowPrivate, mustBePublic: policy.mustBePublic });
    if (!checked.ok) return { ok: false, kind: 'non_public', message: checked.message };
    if (checked.ip) return { ok: true, addresses: [checked.ip] };
    const result = await resolvePublicAddresses(checked.host, {
      resolver,
      allowPrivate,
      mustBePublic: policy.mustBePublic,
    });
    if (result.ok) return { ok: true, addresses: result.addresses.map((a) => a.address) };
    return {
      ok: false,
      kind: result.error.kind === 'non_public' ? 'non_public' : 'dns',
      message: result.error.message,
    };
  }

  return {
    request,
    resolvePublic,
    close() {
      closed = true;
      agent.destroy();
      httpAgent?.destroy();
    },
  };
}

function outgoingHeaders(
  userAgent: string,
  unsafeHeaders: Record<string, string>,
  body: Buffer | string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': userAgent };
  for (const [name, value] of Object.entries(unsafeHeaders)) {
    // The URL alone picks the target, and framing is ours: a fixed length, never chunked.
    if (!CLIENT_OWNED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}
