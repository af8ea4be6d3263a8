// The render cache's file (<state dir>/cache/render.db): a local SQLite file of entries keyed by
// text, whichever state store a server uses. It stays local on purpose: it is only a cache, every
// machine builds with its own, and a lost or damaged one only means rendering again. What an
// entry holds and when it is used is src/compile/render-cache.ts's business; the statements are here.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { isMissingFile } from '../problems/problem.ts';

export interface RenderCacheFile {
  /** The entry stored under `key`, if any. */
  read(key: string): string | undefined;
  /** Stores the entries in one transaction. */
  write(rows: [string, string][]): void;
  /** Never throws: a file that failed is closed as far as it can be. */
  close(): void;
}

/** Opens (or creates) the file; throws what SQLite throws (see isDamagedCacheFile). */
export function openRenderCacheFile(file: string): RenderCacheFile {
  // Loaded here, not imported: SQLite is a native addon, and most rebuilds never need this file.
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  onlyForItsUser(file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // A cache: losing the last writes to a power cut only means rendering them again.
    db.pragma('synchronous = OFF');
    db.pragma('busy_timeout = 5000'); // concurrent builds share the file
    db.exec('CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, entry TEXT NOT NULL)');
    // The key is read back and compared: a damaged index must not hand over another article's entry.
    const select = db.prepare<[string], { key: string; entry: string }>('SELECT key, entry FROM entries WHERE key = ?');
    const insert = db.prepare<[string, string]>('INSERT OR REPLACE INTO entries (key, entry) VALUES (?, ?)');
    const writeAll = db.transaction((rows: [string, string][]) => {
      for (const [key, entry] of rows) insert.run(key, entry);
    });
    return {
      read(key) {
        const row = select.get(key);
        return row?.key === key ? row.entry : undefined;
      },
      write: (rows) => writeAll(rows),
      close() {
        try {
          db.close();
        } catch {
          // already unusable; nothing more to release
        }
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * The file (draft bodies) readable by its user only, made so before SQLite opens it: SQLite makes a
 * new one 0644 less the umask, and its -wal and -shm files take the main file's mode. Those left
 * by an earlier run are closed too.
 */
function onlyForItsUser(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600)); // an empty file is a new database to SQLite
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      fs.chmodSync(file + suffix, 0o600);
    } catch (err) {
      if (!isMissingFile(err)) throw err;
    }
  }
}

/** SQLite's own verdict that the file is not a usable database. */
export function isDamagedCacheFile(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/** Deletes the file with its write-ahead log; best effort. */
export function removeRenderCacheFile(file: string): void {
  try {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  } catch {
    // left for the next build to find damaged again
  }
}
