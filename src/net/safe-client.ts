// Outbound HTTPS that cannot be pointed at private networks. The address check runs in the
// socket's own `lookup` hook, on the very addresses it then connects to, so a DNS answer that
// changes between a check and the connection (rebinding) gains nothing. IP-literal hosts skip
// lookup, so they are checked before the request. Redirects are never followed: a 3xx comes back
// as an ordinary response. node:https with a keep-alive agent: fetch() can neither take a
// connect-time hook nor keep up (it measured 2–3× slower on loopback).
import dns from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { classifyAddress } from './address-policy.ts';
import { bareHost, checkTargetUrl } from './target-url.ts';

export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface SafeClientOptions {
  /** Development and tests only: allow loopback and private targets. */
  allowPrivate?: boolean;
  resolver?: Resolver;
  /** Extra trusted CA (tests); in production NODE_EXTRA_CA_CERTS does this. */
  ca?: string | Buffer;
  userAgent?: string;
  log?: (msg: string) => void;
  maxSockets?: number;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: Buffer | string;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export type NetErrorKind = 'url_invalid' | 'not_https' | 'credentials' | 'non_public' | 'dns' | 'refused' | 'reset' | 'timeout' | 'tls' | 'network';

export type HttpOutcome =
  | { ok: true; status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; truncated: boolean; durationMs: number; address: string }
  | { ok: false; kind: NetErrorKind; message: string; durationMs: number; address?: string };

export interface SafeClient {
  request(url: string, opts?: RequestOptions): Promise<HttpOutcome>;
  /** Save-time check of a host: it resolves, and every address is public. */
  resolvePublic(host: string): Promise<{ ok: true; addresses: string[] } | { ok: false; kind: 'dns' | 'non_public'; message: string }>;
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

class RefusedTarget extends Error {
  readonly code = 'EQUIRE_NON_PUBLIC';
}

const systemResolver: Resolver = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export function createSafeClient(opts: SafeClientOptions = {}): SafeClient {
  const allowPrivate = opts.allowPrivate ?? false;
  const resolver = opts.resolver ?? systemResolver;
  if (allowPrivate) opts.log?.('WARNING: QUIRE_ALLOW_PRIVATE_TARGETS is on: webhooks and checks may reach loopback and private addresses. Never use this in production.');

  const refusal = (host: string, address: string): string | null => {
    if (allowPrivate) return null;
    const verdict = classifyAddress(address);
    return verdict.public ? null : host === address ? `${address} is a ${verdict.range} address; targets must be public` : `${host} resolves to ${address}, a ${verdict.range} address; targets must be public`;
  };

  const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
    resolver(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = found.filter((a) => !family || a.family === family);
        const refused = found.map((a) => refusal(hostname, a.address)).find((r) => r !== null);
        if (refused) return callback(new RefusedTarget(refused), '', 4);
        if (!usable.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (e: NodeJS.ErrnoException) => callback(e, '', 4),
    );
  };

  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: opts.maxSockets ?? 16,
    lookup: guardedLookup,
    ...(opts.ca ? { ca: opts.ca } : {}),
  });

  async function request(unsafeUrl: string, ropts: RequestOptions = {}): Promise<HttpOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const checked = checkTargetUrl(unsafeUrl, { allowPrivate });
    if (!checked.ok) {
      const kind: NetErrorKind = checked.code === 'URL_NOT_HTTPS' ? 'not_https' : checked.code === 'URL_HAS_CREDENTIALS' ? 'credentials' : checked.code === 'URL_INVALID' ? 'url_invalid' : 'non_public';
      return { ok: false, kind, message: checked.message, durationMs: elapsed() };
    }
    const url = checked.url;
    const host = bareHost(url);
    return new Promise<HttpOutcome>((resolve) => {
      let settled = false;
      let address: string | undefined;
      const finish = (outcome: HttpOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const fail = (kind: NetErrorKind, message: string) => finish({ ok: false, kind, message, durationMs: elapsed(), ...(address ? { address } : {}) });
      const headers: Record<string, string> = { ...(opts.userAgent ? { 'User-Agent': opts.userAgent } : {}), ...ropts.headers };
      if (ropts.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(ropts.body));
      const req = https.request({
        agent,
        protocol: 'https:',
        hostname: host,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: ropts.method ?? 'GET',
        headers,
        ...(net.isIP(host) ? {} : { servername: host }),
      });
      const timeoutMs = ropts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timer = setTimeout(() => {
        fail('timeout', `no response within ${timeoutMs} ms`);
        req.destroy();
      }, timeoutMs);
      req.on('socket', (socket) => {
        const check = () => {
          address = socket.remoteAddress;
          // Defence in depth: the lookup hook already refused non-public answers.
          const refused = address ? refusal(host, address) : null;
          if (refused) {
            fail('non_public', refused);
            req.destroy();
          }
        };
        if ((socket as TLSSocket).encrypted !== undefined && socket.remoteAddress && !socket.connecting) check(); // reused keep-alive socket
        else socket.once('connect', check);
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        const [kind, message] = describeError(e, host, timeoutMs);
        fail(kind, message);
      });
      req.on('response', (res) => {
        const limit = ropts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const done = () =>
          finish({ ok: true, status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated, durationMs: elapsed(), address: address ?? res.socket?.remoteAddress ?? '' });
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > limit) {
            chunks.push(chunk.subarray(0, limit - size));
            truncated = true;
            done();
            res.destroy(); // stop reading; the socket is not reused
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', done);
        res.on('error', (e: NodeJS.ErrnoException) => fail('reset', `the response was cut off (${e.code ?? e.message})`));
      });
      req.end(ropts.body);
    });
  }

  async function resolvePublic(host: string): Promise<{ ok: true; addresses: string[] } | { ok: false; kind: 'dns' | 'non_public'; message: string }> {
    const bare = host.replace(/^\[|\]$/g, '');
    let found: { address: string }[];
    try {
      found = net.isIP(bare) ? [{ address: bare }] : await resolver(bare);
    } catch (e) {
      return { ok: false, kind: 'dns', message: `${bare} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
    }
    if (!found.length) return { ok: false, kind: 'dns', message: `${bare} has no address` };
    for (const a of found) {
      const refused = refusal(bare, a.address);
      if (refused) return { ok: false, kind: 'non_public', message: refused };
    }
    return { ok: true, addresses: found.map((a) => a.address) };
  }

  return { request, resolvePublic, close: () => agent.destroy() };
}

const TLS_CODES = /^(CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

function describeError(e: NodeJS.ErrnoException, host: string, timeoutMs: number): [NetErrorKind, string] {
  const code = e.code ?? '';
  if (code === 'EQUIRE_NON_PUBLIC') return ['non_public', e.message];
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || code === 'EAI_FAIL') return ['dns', `${host} does not resolve (${code})`];
  if (code === 'ECONNREFUSED') return ['refused', `${host} refused the connection (ECONNREFUSED)`];
  if (code === 'ETIMEDOUT') return ['timeout', `connecting to ${host} timed out (${timeoutMs} ms)`];
  if (TLS_CODES.test(code)) return ['tls', `${code}: ${e.message}`];
  if (code === 'ECONNRESET' || code === 'EPIPE' || e.message === 'socket hang up') return ['reset', `${host} closed the connection (${code || e.message})`];
  return ['network', `${code ? `${code}: ` : ''}${e.message}`];
}
