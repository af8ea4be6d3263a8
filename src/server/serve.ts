// Starts the HTTP server on the configured port, with connection limits, and resolves once it listens.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { ProblemError } from '../problems/problem.ts';
import {
  applyConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  serverTimeouts,
  type ConnectionLimits,
} from './connection-limits.ts';

export interface RunningServer {
  server: ServerType;
  port: number;
  close(): Promise<void>;
}

/** Answers a request before the app, returning true; or returns false without touching it (src/server/fast-get.ts). */
export type BeforeApp = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A server that listens before it has an app: requests wait until `serve` gives it one. */
export interface Listener extends RunningServer {
  /** The app, and what answers before it (a few hot requests, without the app's per-request objects). */
  serve(app: Hono, beforeApp?: BeforeApp): void;
}

/** `observe` sees the server before it takes its first request (request logs and metrics). */
export async function listen(
  app: Hono,
  port: number,
  hostname: string,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
  observe?: (server: Server) => void,
): Promise<RunningServer> {
  const listener = await openListener(port, hostname, limits, observe);
  listener.serve(app);
  return listener;
}

/**
 * Listens now and serves an app given later: with PORT=0 the port, and so the public URL a build
 * writes into image URLs, is known only once the server listens. A request that comes first waits
 * for the app; one still waiting when the server closes without an app is answered 503.
 */
export function openListener(
  port: number,
  hostname: string,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
  observe?: (server: Server) => void,
): Promise<Listener> {
  let handle: Handle | null = null;
  let first: BeforeApp | null = null;
  let give!: (handle: Handle) => void;
  const given = new Promise<Handle>((resolve) => (give = resolve));
  const fetch: Handle = (req, env) => (handle ? handle(req, env) : given.then((h) => h(req, env)));
  return new Promise((resolve, reject) => {
    // Node's server with the adapter's listener behind whatever answers first.
    const withFirst = ((options: object, appListener: (req: IncomingMessage, res: ServerResponse) => void) =>
      createServer(options, (req, res) => {
        if (first === null || !first(req, res)) appListener(req, res);
      })) as typeof createServer;
    const options = { fetch, port, hostname, serverOptions: serverTimeouts(limits), createServer: withFirst };
    const server = serve(options, (info: AddressInfo) => {
      resolve({
        server,
        port: info.port,
        serve(app, beforeApp) {
          first = beforeApp ?? null;
          handle = (req, env) => app.fetch(req, env);
          give(handle);
        },
        close: () => {
          give(unavailable);
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
    applyConnectionLimits(server, limits);
    // serve() makes a node:http server unless told to make another kind, and it is not told here.
    observe?.(server as Server);
    server.once('error', (e) => reject(listenFailure(e, port, hostname)));
  });
}

/** A port another program holds, as a problem that names it and how to choose another; other errors as they are. */
function listenFailure(e: unknown, port: number, hostname: string): unknown {
  if ((e as NodeJS.ErrnoException | null)?.code !== 'EADDRINUSE') return e;
  const where = `${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;
  return new ProblemError(
    'SERVER_PORT_IN_USE',
    `port ${port} is in use: another program listens on ${where}. Stop it, or choose another port with PORT=<port> (PORT=0: any free port)`,
    { cause: e },
  );
}

type Handle = (req: Request, env: unknown) => Response | Promise<Response>;

/** The answer to a request still waiting for an app when the server closes without one. */
const unavailable: Handle = () =>
  new Response(null, { status: 503, headers: { 'cache-control': 'no-store', connection: 'close' } });
