// Starts the HTTP server on the configured port, with connection limits, and resolves once it listens.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { applyConnectionLimits, DEFAULT_CONNECTION_LIMITS, serverTimeouts, type ConnectionLimits } from './connection-limits.ts';

export interface RunningServer {
  server: ServerType;
  port: number;
  close(): Promise<void>;
}

/** `observe` sees the server before it takes its first request (request logs and metrics). */
export function listen(
  app: Hono,
  port: number,
  hostname: string,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
  observe?: (server: Server) => void,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname, serverOptions: serverTimeouts(limits) }, (info: AddressInfo) => {
      resolve({
        server,
        port: info.port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    applyConnectionLimits(server, limits);
    // serve() makes a node:http server unless told to make another kind, and it is not told here.
    observe?.(server as Server);
    server.once('error', reject);
  });
}
