// Watches every request the server answers, at the node:http level (no middleware on the API's
// fast path): one log line and, when metrics are on, one count and one latency sample each.
import type { Server, ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { Logger } from './log-lines.ts';
import type { Metrics } from './metrics.ts';

export interface RequestObserver {
  /** Starts watching the server's requests (call once, before it listens). */
  attach(server: Server): void;
  /** Records which site a request was for, once its key is verified (for the log line). */
  noteSite(c: Context, siteId: string): void;
  /** The same, for a request answered before the app (src/server/fast-get.ts). */
  noteResponseSite(res: ServerResponse, siteId: string): void;
}

// The site travels on the response itself: a WeakMap entry per request cost the hot path more, and
// its collector work (docs/benchmarks.md, "The Content API").
const SITE = Symbol('quire.site');
type Noted = ServerResponse & { [SITE]?: string };
const noteOn = (res: ServerResponse, siteId: string) => {
  (res as Noted)[SITE] = siteId;
};
const siteOf = (res: ServerResponse): string | null => (res as Noted)[SITE] ?? null;

/** `routePattern`: the metric label of a request path (the server's route table, src/api/routes.ts). */
export function createRequestObserver({
  logger,
  metrics,
  routePattern,
}: {
  logger: Logger;
  metrics: Metrics | null;
  routePattern: (path: string) => string;
}): RequestObserver {
  return {
    attach(server) {
      server.prependListener('request', function observeRequest(req, res) {
        const started = performance.now();
        // Bytes on the wire, headers included: the body's length is not known ahead for every response.
        const socket = req.socket;
        const writtenBefore = socket.bytesWritten;
        // 'close' comes for every response, also one the client abandoned (then no 'finish').
        res.once('close', () => {
          const ms = performance.now() - started;
          const target = req.url ?? '';
          const method = req.method ?? '';
          logger.request({
            method,
            unsafePath: target,
            status: res.statusCode,
            ms,
            bytes: socket.bytesWritten - writtenBefore,
            site: siteOf(res),
          });
          if (metrics) {
            const q = target.indexOf('?');
            metrics.observeRequest(
              routePattern(q < 0 ? target : target.slice(0, q)),
              method,
              res.statusCode,
              ms / 1000,
            );
          }
        });
      });
    },
    noteSite(c, siteId) {
      const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
      if (outgoing) noteOn(outgoing, siteId);
    },
    noteResponseSite: noteOn,
  };
}
