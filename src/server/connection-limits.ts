// Connection limits, so one client holding many slow or half-open connections cannot starve
// the rest: timeouts close connections that send headers slowly or sit idle, a per-client cap
// refuses a client's connections beyond its share (a trusted proxy is not one client), and a
// total cap keeps the process below its open-file limit (past it, accept() fails and nobody is
// answered).
import fs from 'node:fs';
import type { Server, Socket } from 'node:net';
import type { TrustProxy } from '../config/trust-proxy.ts';
import { clientKey } from './client-address.ts';
import { isTrustedProxy } from './trusted-proxy.ts';
import { isMissingFile } from '../problems/problem.ts';

export interface ConnectionLimits {
  /** Open connections at most; more are closed as they arrive. */
  maxConnections: number;
  /** Open connections per client key (IPv4 address, IPv6 /64); 0: no per-client cap. */
  maxPerClient: number;
  /**
   * Peers that are trusted reverse proxies: not capped per client, since each carries the
   * connections of all its clients (the proxy limits those); the total cap still counts them.
   */
  trustProxy?: TrustProxy;
  /** Time to receive a request's headers, from the start of the request. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** A connection with no traffic at all for this long is closed. */
  idleTimeoutMs: number;
  /** How long a kept-alive connection waits for its next request. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 4096,
  maxPerClient: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** Files the process needs besides connections: dist/, SQLite, watchers, workers, logs. */
const FILE_RESERVE = 256;

/**
 * The total cap: the wanted one (or the default) but never above the open-file limit less a
 * reserve. `fileLimit` null: unknown (not Linux), the wanted cap stands.
 */
export function connectionCap(wanted: number | null, fileLimit: number | null): number {
  const cap = wanted ?? DEFAULT_CONNECTION_LIMITS.maxConnections;
  return fileLimit === null ? cap : Math.max(1, Math.min(cap, fileLimit - FILE_RESERVE));
}

/** The soft open-file limit of this process, from /proc on Linux; null elsewhere. */
export function openFileLimit(): number | null {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/limits', 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return null;
    throw err;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!m) throw new Error('/proc/self/limits has no "Max open files" line');
  return m[1] === 'unlimited' ? null : Number(m[1]);
}

/** Options for http.createServer that carry the timeouts. */
export function serverTimeouts(limits: ConnectionLimits) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often expired headers/requests are looked for (Node's default, 30 s, outlives the timeouts).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** Applies the caps and the idle timeout to a listening or about-to-listen server. */
export function applyConnectionLimits(
  server: Server & { setTimeout(ms: number): unknown },
  limits: ConnectionLimits,
): void {
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleTimeoutMs);
  if (limits.maxPerClient === 0) return;
  // One entry per client with an open connection: bounded by maxConnections.
  const open = new Map<string, number>();
  const { trustProxy } = limits;
  server.on('connection', (socket: Socket) => {
    if (trustProxy && isTrustedProxy(trustProxy, socket.remoteAddress)) return;
    const client = clientKey(socket.remoteAddress);
    const count = open.get(client) ?? 0;
    if (count >= limits.maxPerClient) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}
