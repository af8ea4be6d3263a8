// The state store's interface: everything Quire does with its state (webhook registrations, the
// delivery outbox and its attempts, what each site was last sent, locks between processes) goes
// through these operations, named by what the product does. The rest of Quire imports this
// module only (and render-cache-file.ts, the build's local cache); their SQL lives in src/store/
// and nowhere else, the state's in sqlite/ (test/structure/persistence-boundary.test.ts checks it).
//
// Synchronous for now, on purpose. The one implementation is better-sqlite3, which is
// synchronous and whose transactions cannot span an `await`; a Promise-returning interface over
// it would add a microtask per call on the delivery hot path and change nothing else. A second
// implementation on an asynchronous driver (PostgreSQL) makes every operation return a Promise
// and `transaction` take `(tx) => Promise<T>` with `tx` bound to one connection. That change is
// mechanical for callers, because every unit of work is already either one operation here (a
// claim batch, a group of attempt records, taking a lock) or one `transaction` callback that
// uses only its `tx` (queueing a publish with its record, saving a webhook with its missed
// events): no caller relies on SQLite's one-connection-per-process to get atomicity.
import { openSqliteStateStore } from './sqlite/sqlite-state-store.ts';
import type { StateStore } from './state-interface.ts';

export type * from './records.ts';
export type * from './state-interface.ts';
export { attemptErrorText, CHANGE_LOG_KEEP_PER_SITE } from './records.ts';
export { newLeaseOwner } from './owners.ts';
export { StateStoreError } from './state-store-error.ts';
export { backupState, StateBackupError, type BackupSummary } from './sqlite/state-backup.ts';

/** Opens the state store in `stateDir`, its webhook secrets sealed under `serverSecret`. */
export function openStateStore(stateDir: string, serverSecret: string): StateStore {
  return openSqliteStateStore(stateDir, serverSecret);
}
