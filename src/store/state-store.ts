// The state store's interface: everything Quire does with its state (webhook registrations, the
// delivery outbox and its attempts, what each site was last sent, locks between processes) goes
// through these operations, named by what the product does. The rest of Quire imports this
// module only (and render-cache-file.ts, the build's local cache); their SQL lives in src/store/
// and nowhere else, the state's in sqlite/ or postgres/ (test/structure/persistence-boundary.test.ts
// checks it). QUIRE_DATABASE_URL chooses PostgreSQL; unset, the state is SQLite in the state dir.
//
// Asynchronous: every operation returns a Promise, and `transaction` takes `(tx) => Promise<T>`
// with `tx` bound to one connection. Every unit of work is either one operation here (a claim
// batch, a group of attempt records, taking a lock) or one `transaction` callback that uses only
// its `tx` (queueing a publish with its record, saving a webhook with its missed events): no
// caller relies on one connection per process for atomicity. SQLite (better-sqlite3, synchronous)
// keeps that true by holding every other operation of the process while a transaction awaits
// (sqlite/serialized.ts).
import { openPostgresStateStore } from './postgres/postgres-state-store.ts';
import { openSqliteStateStore } from './sqlite/sqlite-state-store.ts';
import type { StateStore } from './state-interface.ts';

export type * from './records.ts';
export type * from './page-check-records.ts';
export type * from './state-interface.ts';
export { attemptErrorText, CHANGE_LOG_KEEP_PER_SITE } from './records.ts';
export { newDeliveryId, newLeaseOwner } from './owners.ts';
export { StateStoreError } from './state-store-error.ts';
export { backupState, StateBackupError, type BackupSummary } from './sqlite/state-backup.ts';
export { StateDatabaseError } from './postgres/database-error.ts';
export { copySqliteStateToPostgres, type CopySummary } from './postgres/copy-from-sqlite.ts';

/**
 * Opens the state store, its webhook secrets sealed under `serverSecret`: in PostgreSQL at
 * `databaseUrl` when one is given, else SQLite in `stateDir`.
 */
export function openStateStore(stateDir: string, serverSecret: string, databaseUrl: string | null = null): StateStore {
  return databaseUrl ? openPostgresStateStore(databaseUrl, serverSecret) : openSqliteStateStore(stateDir, serverSecret);
}
