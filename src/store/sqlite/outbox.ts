// The delivery outbox on SQLite. What each operation means is the Outbox interface's
// (../state-interface.ts); the notes in its pieces are about how: statements prepared once,
// positional parameters where they run per delivery, bodies in their own table. Every transaction
// that writes is IMMEDIATE: one that read first could not wait for another process's write lock
// (SQLite answers SQLITE_BUSY at once), and publish, servers and workers share the file.
// The pieces: deliveries as records (outbox-deliveries.ts), the due list (outbox-due.ts), claims
// (outbox-claims.ts), attempts recorded (outbox-attempts.ts), the figures (outbox-figures.ts),
// the bodies, held in memory from enqueue to claim (outbox-bodies.ts), and the page check a
// delivery is queued with and which its acknowledgment makes due (page-checks.ts).
import type { Outbox } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import { createAttempts } from './outbox-attempts.ts';
import { createBodies } from './outbox-bodies.ts';
import { createClaims } from './outbox-claims.ts';
import { createDeliveries } from './outbox-deliveries.ts';
import { createDueList } from './outbox-due.ts';
import { createFigures } from './outbox-figures.ts';
import { createPageCheckWrites } from './page-checks.ts';
import type { Synchronous } from './serialized.ts';

export function createOutbox(db: StateDb): Synchronous<Outbox> {
  const bodies = createBodies(db);
  const dueList = createDueList(db);
  const checks = createPageCheckWrites(db);
  return {
    ...createDeliveries(db, bodies, checks),
    ...dueList,
    ...createClaims(db, bodies, dueList),
    ...createAttempts(db, checks),
    ...createFigures(db),
  };
}
