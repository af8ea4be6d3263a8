// The state store on SQLite (<state dir>/quire.db): the database and the operations over it.
import { createSecretBox } from '../secret-box.ts';
import type {
  ChangeLog,
  HostSlots,
  KeyGenerationRecords,
  Locks,
  Outbox,
  PageChecks,
  PublishRecords,
  StateParts,
  StateStore,
  Webhooks,
} from '../state-interface.ts';
import { stateDbFileOf } from '../../config/state-layout.ts';
import { openStateDb, type StateDb } from './database.ts';
import { createHostSlots } from './host-slots.ts';
import { createKeyGenerationRecords } from './key-generations.ts';
import { tryLock } from './locks.ts';
import { createChangeLog } from './change-log.ts';
import { createOutbox } from './outbox.ts';
import { createPageChecks } from './page-checks.ts';
import { createPublishState } from './publish-state.ts';
import { ConnectionQueue, promised, settled, type Synchronous } from './serialized.ts';
import { createWebhookStore } from './webhooks.ts';

/** The store with its database handle: for this folder and the store's own tests, never handed out. */
export interface SqliteStateStore extends StateStore {
  db: StateDb;
}

/** `changeLogKeep`: entries kept per site (the store's own tests make it small). */
export function openSqliteStateStore(stateDir: string, serverSecret: string, changeLogKeep?: number): SqliteStateStore {
  const db = openStateDb(stateDir);
  const changes = createChangeLog(db, changeLogKeep);
  const sync: {
    webhooks: Synchronous<Webhooks>;
    outbox: Synchronous<Outbox>;
    published: Synchronous<PublishRecords>;
    changes: Synchronous<ChangeLog>;
  } = {
    webhooks: createWebhookStore(db, createSecretBox(serverSecret)),
    outbox: createOutbox(db),
    published: createPublishState(db, changes),
    changes,
  };
  const queue = new ConnectionQueue();
  const queued = <R>(op: () => R) => queue.run(op);
  // Inside a transaction the connection is already held: its operations run straight away.
  const direct = <R>(op: () => R) => settled(op);
  const partsThrough = (run: <R>(op: () => R) => Promise<R>): StateParts => ({
    webhooks: promised<Webhooks>(sync.webhooks, run),
    outbox: promised<Outbox>(sync.outbox, run),
    published: promised<PublishRecords>(sync.published, run),
    changes: promised<ChangeLog>(sync.changes, run),
  });
  const inTransaction = partsThrough(direct);
  const locks: Locks = {
    tryAcquire: (name, owner, now) =>
      queue.run(() => {
        const result = tryLock(db, name, owner, now);
        return result.acquired ? { acquired: true as const, release: () => queue.run(result.release) } : result;
      }),
  };
  return {
    db,
    writes: 'local',
    ...partsThrough(queued),
    locks,
    hostSlots: promised<HostSlots>(createHostSlots(db), queued),
    pageChecks: promised<PageChecks>(createPageChecks(db), queued),
    keyGenerations: {
      where: `the state store ${stateDbFileOf(stateDir)}`,
      ...promised<Omit<KeyGenerationRecords, 'where'>>(createKeyGenerationRecords(db), queued),
    },
    // IMMEDIATE: the write lock is taken at the start, so a transaction that reads and then
    // writes never finds another process's write in between (SQLITE_BUSY without waiting).
    // Nested transactions of an operation inside become savepoints.
    transaction: (work) =>
      queue.exclusive(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(inTransaction);
          db.exec('COMMIT');
          return result;
        } catch (e) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw e;
        }
      }),
    ready: () => Promise.resolve(),
    close: () =>
      queue.run(() => {
        db.close();
      }),
  };
}
