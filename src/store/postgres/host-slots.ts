// Slots per receiving host on PostgreSQL (see the HostSlots interface): the free slot is found and
// taken in one statement, skipping a row another sender is taking (FOR UPDATE SKIP LOCKED), so
// however many workers run, a host never has more than `cap` requests from the fleet at once.
import type { HostSlots } from '../state-interface.ts';
import type { Db } from './connection.ts';

export function createHostSlots(db: Db): HostSlots {
  const ensured = new Map<string, number>();
  return {
    async take(host, cap, owner, now, until) {
      if ((ensured.get(host) ?? 0) < cap) {
        await db.run(
          'INSERT INTO host_slots (host, slot) SELECT $1, s FROM generate_series(0, $2 - 1) AS s ON CONFLICT DO NOTHING',
          [host, cap],
        );
        ensured.set(host, cap);
      }
      const [row] = await db.rows<{ slot: number }>(
        `UPDATE host_slots SET owner = $3, lease_until = $5
         WHERE (host, slot) = (SELECT host, slot FROM host_slots WHERE host = $1 AND slot < $2 AND lease_until <= $4 ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING slot`,
        [host, cap, owner, now, until],
      );
      return row?.slot ?? null;
    },
    async release(host, slot, owner) {
      await db.run('UPDATE host_slots SET owner = NULL, lease_until = 0 WHERE host = $1 AND slot = $2 AND owner = $3', [
        host,
        slot,
        owner,
      ]);
    },
  };
}
