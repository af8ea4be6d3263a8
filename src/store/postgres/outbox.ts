// The delivery outbox on PostgreSQL. What each operation means is the Outbox interface's
// (../state-interface.ts); how it holds across processes and machines is told by its pieces:
// deliveries as records (outbox-deliveries.ts), the due list (outbox-due.ts), claims with their
// slug leases (outbox-claims.ts), attempts recorded (outbox-attempts.ts), the figures
// (outbox-figures.ts), and the SQL they share (outbox-sql.ts).
import type { Outbox } from '../state-interface.ts';
import type { Db, Statements } from './connection.ts';
import { createAttempts } from './outbox-attempts.ts';
import { createClaims } from './outbox-claims.ts';
import { createDeliveries } from './outbox-deliveries.ts';
import { createDueList } from './outbox-due.ts';
import { createFigures } from './outbox-figures.ts';

export { IN_INDEX_ORDER } from './outbox-sql.ts';

/** `claims`: a connection whose session has IN_INDEX_ORDER set, for every site's claims (takeDue). */
export function createOutbox(db: Db, claims: Statements | null = null): Outbox {
  return {
    ...createDeliveries(db),
    ...createDueList(db),
    ...createClaims(db, claims),
    ...createAttempts(db),
    ...createFigures(db),
  };
}
