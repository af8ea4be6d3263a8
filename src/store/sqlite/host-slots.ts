// Slots per receiving host on SQLite (see the HostSlots interface): one write each, serialized by
// SQLite's write lock, so two processes never take the same slot.
import type { HostSlots } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export function createHostSlots(db: StateDb): Synchronous<HostSlots> {
  // Named parameters: better-sqlite3 binds an array to `?NNN` by count, and refuses one used twice.
  const ensure = db.prepare<{ host: string; cap: number }>(
    `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n + 1 < @cap)
     INSERT INTO host_slots (host, slot) SELECT @host, n FROM s WHERE true ON CONFLICT DO NOTHING`,
  );
  const take = db.prepare<{ host: string; cap: number; now: number; owner: string; until: number }, { slot: number }>(
    `UPDATE host_slots SET owner = @owner, lease_until = @until
     WHERE rowid = (SELECT rowid FROM host_slots WHERE host = @host AND slot < @cap AND lease_until <= @now ORDER BY slot LIMIT 1)
     RETURNING slot`,
  );
  const release = db.prepare<[string, number, string]>(
    'UPDATE host_slots SET owner = NULL, lease_until = 0 WHERE host = ? AND slot = ? AND owner = ?',
  );
  const ensured = new Map<string, number>();
  return {
    take(host, cap, owner, now, until) {
      if ((ensured.get(host) ?? 0) < cap) {
        ensure.run({ host, cap });
        ensured.set(host, cap);
      }
      return take.get({ host, cap, now, owner, until })?.slot ?? null;
    },
    release(host, slot, owner) {
      release.run(host, slot, owner);
    },
  };
}
