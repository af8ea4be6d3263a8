// The state store on SQLite (<state dir>/quire.db): the database and the operations over it.
import { createSecretBox } from '../secret-box.ts';
import type { StateStore } from '../state-interface.ts';
import { openStateDb, type StateDb } from './database.ts';
import { tryLock } from './locks.ts';
import { createChangeLog } from './change-log.ts';
import { createOutbox } from './outbox.ts';
import { createPublishState } from './publish-state.ts';
import { createWebhookStore } from './webhooks.ts';

/** The store with its database handle: for this folder and the store's own tests, never handed out. */
export interface SqliteStateStore extends StateStore {
  db: StateDb;
}

/** `changeLogKeep`: entries kept per site (the store's own tests make it small). */
export function openSqliteStateStore(stateDir: string, serverSecret: string, changeLogKeep?: number): SqliteStateStore {
  const db = openStateDb(stateDir);
  const changes = createChangeLog(db, changeLogKeep);
  const parts = {
    webhooks: createWebhookStore(db, createSecretBox(serverSecret)),
    outbox: createOutbox(db),
    published: createPublishState(db, changes),
    changes,
  };
  return {
    db,
    ...parts,
    locks: { tryAcquire: (name, owner, now) => tryLock(db, name, owner, now) },
    // One connection per process: the transaction's `tx` is the store's own parts. Nested calls
    // (an operation that opens its own transaction) become savepoints.
    transaction: (work) => db.transaction(() => work(parts))(),
    close: () => db.close(),
  };
}
