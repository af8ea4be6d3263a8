// One HTTPS request (or HTTP, when the URL is http: and the client's policy let it through) and
// its response over a shared agent, bounded in time and in bytes read.
// Never throws: every way an exchange can end becomes an HttpOutcome. Redirects are not followed
// (node:https never does); a 3xx is an ordinary outcome.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { describeNetError, NetFailure, type NetErrorKind } from './net-errors.ts';

export type HttpOutcome =
  | {
      ok: true;
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Buffer;
      truncated: boolean;
      durationMs: number;
      /** The remote address the request was sent to. */
      address: string;
    }
  | { ok: false; kind: NetErrorKind; message: string; durationMs: number; address?: string };

export interface Exchange {
  url: URL;
  /** Hostname without IPv6 brackets. */
  host: string;
  /** An https.Agent, or an http.Agent for an http: URL. */
  agent: http.Agent;
  lookup: net.LookupFunction;
  /** Whether a connected socket's remote address is one the lookup (or literal check) approved. */
  isApproved: (address: string) => boolean;
  /** Sockets already confirmed at connect time; keep-alive reuse skips the check. */
  verifiedSockets: WeakSet<net.Socket>;
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  started: number;
}

export function exchange(x: Exchange): Promise<HttpOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let address: string | undefined;
    const durationMs = () => performance.now() - x.started;
    const settle = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const fail = (error: unknown) => {
      const { kind, message } = describeNetError(error, x.host);
      settle({ ok: false, kind, message, durationMs: durationMs(), ...(address ? { address } : {}) });
      req?.destroy();
    };

    // One deadline for connect, TLS, headers and body: a slow drip cannot hold a worker.
    const timer = setTimeout(
      () => fail(new NetFailure('timeout', `no complete response from ${x.host} within ${x.timeoutMs} ms`)),
      x.timeoutMs,
    );

    let req: http.ClientRequest | undefined;
    try {
      const options: https.RequestOptions = {
        agent: x.agent,
        lookup: x.lookup, // request level: the agent would let its own options win over ours
        hostname: x.host,
        path: `${x.url.pathname}${x.url.search}`,
        method: x.method,
        headers: x.headers,
      };
      req =
        x.url.protocol === 'http:'
          ? http.request({ ...options, port: x.url.port || 80 })
          : https.request({
              ...options,
              port: x.url.port || 443,
              // SNI and certificate check against the URL's host, never a caller-supplied Host header.
              // ('' for IP literals: no SNI, and the certificate must name the IP.)
              servername: net.isIP(x.host) ? '' : x.host,
            });
    } catch (error) {
      fail(error); // e.g. a header value with a newline
      return;
    }

    req.on('socket', (socket) => {
      if (x.verifiedSockets.has(socket)) {
        address = socket.remoteAddress;
        return;
      }
      // Defence in depth: the lookup already refused non-public answers; confirm the socket
      // really went to one of the approved addresses before any HTTP is written.
      const verify = () => {
        const remote = socket.remoteAddress;
        if (!remote || !x.isApproved(remote)) {
          socket.destroy(
            new NetFailure(
              'non_public',
              `the connection to ${x.host} reached ${remote ?? 'an unknown address'}, which is not an address that was checked; the request was not sent`,
            ),
          );
          return;
        }
        x.verifiedSockets.add(socket);
        address = remote;
      };
      if (socket.connecting) socket.once('connect', verify);
      else verify();
    });

    req.on('error', fail);

    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) =>
        settle({
          ok: true,
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks, size),
          truncated,
          durationMs: durationMs(),
          address: address ?? res.socket?.remoteAddress ?? '',
        });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = x.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          done(true);
          res.destroy(); // stop reading; the socket is closed, not returned to the pool
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => done(false));
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete)
          fail(new NetFailure('reset', `${x.host} closed the connection before the response was complete`));
      });
    });

    req.end(x.body);
  });
}
