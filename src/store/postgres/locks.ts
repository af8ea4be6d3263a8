// Named locks between processes on PostgreSQL: a session advisory lock on a connection of its own,
// so the server frees it the moment its holder's process dies, on whatever machine (SIGKILL
// included); the locks table only says who holds it, for the message to the one that waits.
import os from 'node:os';
import pg from 'pg';
import type { LockHolder } from '../records.ts';
import type { Locks } from '../state-interface.ts';
import { connectionConfig, explainConnectionError } from './connection.ts';

export function createLocks(url: string, ready: () => Promise<void>): Locks {
  return {
    async tryAcquire(name, owner, now) {
      await ready();
      const client = new pg.Client(connectionConfig(url));
      client.on('error', () => undefined); // the server went away: the lock went with it
      await client.connect().catch((e: unknown) => {
        throw explainConnectionError(e, url);
      });
      try {
        const key = `quire:lock:${name}`;
        const [{ ok }] = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]))
          .rows as [{ ok: boolean }];
        if (!ok) {
          const [row] = (
            await client.query<{ owner: string; pid: number; host: string; acquired_at: number }>(
              'SELECT owner, pid, host, acquired_at FROM locks WHERE name = $1',
              [name],
            )
          ).rows;
          await client.end();
          const holder: LockHolder = row
            ? { owner: row.owner, pid: row.pid, host: row.host, acquiredAt: Number(row.acquired_at) }
            : { owner: 'another process', pid: 0, host: 'unknown', acquiredAt: now };
          return { acquired: false, holder };
        }
        await client.query(
          `INSERT INTO locks (name, owner, pid, host, acquired_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at`,
          [name, owner, process.pid, os.hostname(), now],
        );
        return {
          acquired: true,
          release: async () => {
            try {
              await client.query('DELETE FROM locks WHERE name = $1 AND owner = $2', [name, owner]);
              await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
            } finally {
              await client.end().catch(() => undefined);
            }
          },
        };
      } catch (e) {
        await client.end().catch(() => undefined);
        throw e;
      }
    },
  };
}
