// `quire state backup <dir>`: a consistent copy of the state while a server or a publish writes
// it. The database is copied with VACUUM INTO (one read transaction: a snapshot of a single
// moment, never a half-written page, and it does not restart when a writer commits meanwhile);
// keys.json and a generated secret are copied beside it. Written to a temporary folder next to
// the target and renamed into place, so a backup that is there is a whole one. The copy leaves
// out the store's identity: a store restored from it is a new one for the change feed (see
// change-log.ts), so cursors made before the restore expire rather than skip or repeat changes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { isMissingFile, ProblemError } from '../../problems/problem.ts';
import { KEYS_FILE, SECRET_FILE, STATE_DB_FILE, stateDbFileOf } from '../../config/state-layout.ts';

/** What a backup folder holds: the database, then the state files that are present. */
export const BACKUP_FILES = [STATE_DB_FILE, KEYS_FILE, SECRET_FILE] as const;

export class StateBackupError extends ProblemError<'STATE_BACKUP_REFUSED'> {
  constructor(message: string) {
    super('STATE_BACKUP_REFUSED', message);
    this.name = 'StateBackupError';
  }
}

export interface BackupSummary {
  files: string[];
  webhooks: number;
  deliveries: number;
}

export function backupState(stateDir: string, target: string, opts: { force: boolean }): BackupSummary {
  const source = stateDbFileOf(stateDir);
  if (!fs.existsSync(source)) throw new StateBackupError(`no state to back up: ${source} does not exist`);
  const replacing = checkTarget(target, opts.force);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(tmp, { mode: 0o700 });
  try {
    const files = [STATE_DB_FILE];
    copyDatabase(source, path.join(tmp, STATE_DB_FILE));
    for (const name of BACKUP_FILES.slice(1))
      if (copyIfPresent(path.join(stateDir, name), path.join(tmp, name))) files.push(name);
    const summary = { files, ...checkCopy(path.join(tmp, STATE_DB_FILE)) };
    if (replacing) fs.rmSync(target, { recursive: true });
    fs.renameSync(tmp, target);
    return summary;
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Whether an existing backup is to be replaced; refuses anything else that is there. */
function checkTarget(target: string, force: boolean): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (e) {
    // Only ENOENT: with ENOTDIR (a file on the target's path) no backup can be written there,
    // and this refusal names the path where making the folder would fail on its own.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StateBackupError(`cannot check ${target}: ${(e as Error).message}`);
  }
  if (!force)
    throw new StateBackupError(`${target} already exists; nothing was written (--force replaces an earlier backup)`);
  const entries = stat.isDirectory() ? fs.readdirSync(target) : null;
  const isBackup =
    entries?.includes(STATE_DB_FILE) && entries.every((e) => (BACKUP_FILES as readonly string[]).includes(e));
  if (!isBackup)
    throw new StateBackupError(
      `${target} is not a Quire state backup (a folder holding only ${BACKUP_FILES.join(', ')}); not replaced, even with --force`,
    );
  return true;
}

function copyDatabase(source: string, dest: string): void {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000'); // a writer's checkpoint may hold the file a moment
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
  const copy = new Database(dest, { fileMustExist: true });
  try {
    const hasIdentity = copy
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'store_identity'")
      .get();
    if (hasIdentity) copy.prepare('DELETE FROM store_identity').run();
  } finally {
    copy.close();
  }
  fs.chmodSync(dest, 0o600); // sealed webhook secrets and delivered bodies
}

function copyIfPresent(source: string, dest: string): boolean {
  try {
    fs.copyFileSync(source, dest, fs.constants.COPYFILE_EXCL);
  } catch (e) {
    if (isMissingFile(e) && !fs.existsSync(source)) return false;
    throw new StateBackupError(`cannot copy ${source}: ${(e as Error).message}`);
  }
  fs.chmodSync(dest, 0o600);
  return true;
}

/** The copy opens and passes SQLite's own check; what it holds, for the report. */
function checkCopy(file: string): { webhooks: number; deliveries: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok')
      throw new StateBackupError(`the copy ${file} failed SQLite's check (${String(check)}); nothing was written`);
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { webhooks: count('webhooks'), deliveries: count('deliveries') };
  } finally {
    db.close();
  }
}
