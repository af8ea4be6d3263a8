// Named locks between processes sharing the state store (two `publish` runs must not both send).
// A holder that died without releasing (SIGKILL, crash) is detected by its pid on this host.
import os from 'node:os';
import { isAlive } from '../owners.ts';
import type { SyncLockResult } from './serialized.ts';
import type { StateDb } from './database.ts';

export function tryLock(db: StateDb, name: string, owner: string, now: number): SyncLockResult {
  const host = os.hostname();
  const result = db
    .transaction((): SyncLockResult => {
      const row = db
        .prepare<[string], { owner: string; pid: number; host: string; acquired_at: number }>(
          'SELECT * FROM locks WHERE name = ?',
        )
        .get(name);
      if (row && !(row.host === host && !isAlive(row.pid)) && row.pid !== process.pid) {
        return {
          acquired: false,
          holder: { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: row.acquired_at },
        };
      }
      db.prepare('INSERT OR REPLACE INTO locks (name, owner, pid, host, acquired_at) VALUES (?, ?, ?, ?, ?)').run(
        name,
        owner,
        process.pid,
        host,
        now,
      );
      return { acquired: true, release: () => undefined };
    })
    .immediate();
  if (!result.acquired) return result;
  return {
    acquired: true,
    release: () => {
      db.prepare('DELETE FROM locks WHERE name = ? AND owner = ?').run(name, owner);
    },
  };
}
