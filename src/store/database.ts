// Opens the SQLite state store (<state dir>/quire.db) in WAL mode and brings its schema up to date.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.ts';

export type StateDb = Database.Database;

export const STATE_DB_FILE = 'quire.db';

export class StateStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateStoreError';
  }
}

export function openStateDb(stateDir: string): StateDb {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, STATE_DB_FILE);
  const db = new Database(file);
  try {
    fs.chmodSync(file, 0o600); // holds sealed webhook secrets and delivered bodies
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable at checkpoints, never corrupt
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000'); // publish, the server's worker and the CLI share the file
    migrate(db, file);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function migrate(db: StateDb, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new StateStoreError(`${file} has schema version ${version}, newer than this Quire knows (${MIGRATIONS.length}); upgrade Quire`);
  }
  const pending = MIGRATIONS.slice(version);
  if (!pending.length) return;
  // IMMEDIATE: two processes opening a new store at once must not both run the same step.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    MIGRATIONS.slice(current).forEach((sql, i) => {
      db.exec(sql);
      db.pragma(`user_version = ${current + i + 1}`);
    });
  }).immediate();
}
