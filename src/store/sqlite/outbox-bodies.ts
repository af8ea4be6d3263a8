// A delivery's body on SQLite: kept in its own table (delivery_bodies), and held in memory by the
// process that queued it until it is claimed.
import type { Delivery, DeliveryWithBody } from '../records.ts';
import type { PageCheckRequest } from '../page-check-records.ts';
import type { StateDb } from './database.ts';

/**
 * Bodies this process queued, until they are claimed: `publish` queues its events and sends them at
 * once, and reading each body back out of SQLite was a good part of a delivery's local work
 * (docs/benchmarks-log.md, "figures first recorded in code comments"). Bounded in bytes (oldest
 * dropped first); a body not held here is read from the database. A delivery's body never changes
 * once queued, so the two always agree; the caller hands the buffer over at enqueue and must not
 * change it.
 */
class QueuedBodies {
  private readonly bodies = new Map<string, Buffer>();
  private bytes = 0;
  add(id: string, body: Buffer): void {
    if (body.length > MAX_QUEUED_BODY_BYTES / 4) return;
    this.bodies.set(id, body);
    this.bytes += body.length;
    for (const [oldest, b] of this.bodies) {
      if (this.bytes <= MAX_QUEUED_BODY_BYTES) break;
      this.bodies.delete(oldest);
      this.bytes -= b.length;
    }
  }
  take(id: string): Buffer | undefined {
    const body = this.bodies.get(id);
    if (body) {
      this.bodies.delete(id);
      this.bytes -= body.length;
    }
    return body;
  }
}
const MAX_QUEUED_BODY_BYTES = 32 * 1024 * 1024;

export interface Bodies {
  /** Holds a body this process just queued (see QueuedBodies). */
  queued(id: string, body: Buffer): void;
  /** A delivery's body: the one held here (given up), else the stored one. */
  bodyFor(id: string): Buffer;
  withBody(d: Delivery, pageCheck: PageCheckRequest): DeliveryWithBody;
}

export function createBodies(db: StateDb): Bodies {
  const bodyOf = db.prepare<[string], { body: Buffer }>('SELECT body FROM delivery_bodies WHERE delivery_id = ?');
  const queuedBodies = new QueuedBodies();
  const bodyFor = (id: string): Buffer => queuedBodies.take(id) ?? bodyOf.get(id)?.body ?? Buffer.alloc(0);
  return {
    queued: (id, body) => queuedBodies.add(id, body),
    bodyFor,
    withBody: (d, pageCheck) => ({ ...d, body: bodyFor(d.id), pageCheck }),
  };
}
