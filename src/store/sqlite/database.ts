// Opens the SQLite state store (<state dir>/quire.db) in WAL mode and brings its schema up to date.
// A store that cannot be read fails closed with the file named: an empty, damaged or foreign
// file is never taken for a new store (that would silently drop every webhook registration).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { ensureStateDir } from '../../config/state-dir.ts';
import { stateDbFileOf } from '../../config/state-layout.ts';
import { isMissingFile } from '../../problems/problem.ts';
import { StateStoreError } from '../state-store-error.ts';
import { MIGRATIONS } from './migrations.ts';

export type StateDb = Database.Database;

export function openStateDb(stateDir: string): StateDb {
  const file = stateDbFileOf(stateDir);
  try {
    ensureStateDir(stateDir);
  } catch (e) {
    throw new StateStoreError(`the state dir ${stateDir} cannot be made (${(e as Error).message}); it holds ${file}`, {
      cause: e,
    });
  }
  if (!fs.existsSync(file)) createStateDb(file);
  checkNotEmpty(file);
  let db: StateDb;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (e) {
    throw unreadable(file, e);
  }
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
    throw e instanceof StateStoreError ? e : unreadable(file, e);
  }
}

const WHAT_IT_HOLDS = 'the webhook registrations, the delivery outbox and log, and what each site was last sent';
const WHAT_TO_DO = `Restore it from a backup; or, to start over deliberately, move it away: every webhook must then be set again, and each site's next publish is a first publish`;

/**
 * A new store is made under a temporary name and linked into place with its schema: so a store
 * that exists always has one, and an empty or schema-less `quire.db` is damage, never "new".
 */
function createStateDb(file: string): void {
  const tmp = `${file}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const db = new Database(tmp);
    try {
      db.pragma('journal_mode = DELETE'); // one self-contained file to link
      migrate(db, tmp, true);
    } finally {
      db.close();
    }
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new StateStoreError(
      `could not create ${file} (${e instanceof Error ? e.message : String(e)}): is the state dir writable?`,
      { cause: e },
    );
  }
  try {
    fs.linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new StateStoreError(`could not create ${file}: ${(e as Error).message}`, { cause: e });
    // another process made it first: use theirs
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** A 0-byte store is not new (see createStateDb) unless its write-ahead log holds the pages. */
function checkNotEmpty(file: string): void {
  const size = (f: string) => {
    try {
      return fs.statSync(f).size;
    } catch (e) {
      if (isMissingFile(e)) return 0;
      throw unreadable(file, e); // there but not to be looked at: not "empty"
    }
  };
  if (size(file) === 0 && size(`${file}-wal`) === 0) {
    throw new StateStoreError(`${file} is empty (0 bytes): ${WHAT_IT_HOLDS} are gone from it. ${WHAT_TO_DO}.`);
  }
}

function unreadable(file: string, cause: unknown): StateStoreError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new StateStoreError(
    `${file} cannot be read as Quire's state store (${why}); it holds ${WHAT_IT_HOLDS}. ${WHAT_TO_DO}.`,
    { cause },
  );
}

function migrate(db: StateDb, file: string, isNew = false): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === 0 && !isNew) {
    throw new StateStoreError(
      `${file} is not a Quire state store (an SQLite file without its schema); it should hold ${WHAT_IT_HOLDS}. ${WHAT_TO_DO}.`,
    );
  }
  if (version > MIGRATIONS.length) {
    throw new StateStoreError(
      `${file} has schema version ${version}, newer than this Quire knows (${MIGRATIONS.length}); upgrade Quire`,
    );
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
