// Whether this server can do its job: a build is served, its state can be read, and the delivery
// worker is running. Computed from what the process already holds; no disk read per request.
export type Readiness = { ready: true } | { ready: false; reason: string };

import type { WorkerHealth } from '../delivery/delivery-worker.ts';

export type { WorkerHealth };

export function createReadiness(parts: { buildServed: () => boolean; worker?: () => WorkerHealth }): () => Readiness {
  return () => {
    if (!parts.buildServed()) return { ready: false, reason: 'no build is served yet' };
    const worker = parts.worker?.();
    // The details (a path, an SQLite message) go to the server's log, not to an unauthenticated reply.
    if (worker?.error) return { ready: false, reason: 'the state database cannot be read; see the server log' };
    if (worker && !worker.running) return { ready: false, reason: 'the delivery worker is not running' };
    return { ready: true };
  };
}
