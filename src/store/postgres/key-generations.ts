// API key generations on PostgreSQL (see the KeyGenerationRecords interface): a rotation is one
// statement, so rotations from several machines at once each get a generation of their own.
import type { KeyGenerationRecords } from '../state-interface.ts';
import type { Db } from './connection.ts';

export function createKeyGenerationRecords(db: Db, where: string): KeyGenerationRecords {
  return {
    where,
    async all() {
      const rows = await db.rows<{ name: string; generation: number }>(
        'SELECT name, generation FROM key_generations ORDER BY name',
      );
      return Object.fromEntries(rows.map((r) => [r.name, r.generation]));
    },
    async rotate(name, from) {
      const [row] = await db.rows<{ generation: number }>(
        `INSERT INTO key_generations (name, generation) VALUES ($1, $2::bigint + 1)
         ON CONFLICT (name) DO UPDATE SET generation = greatest(key_generations.generation, $2::bigint) + 1
         RETURNING generation`,
        [name, from],
      );
      return row!.generation;
    },
    async raise(generations) {
      const entries = Object.entries(generations).filter(([, g]) => g > 1);
      if (!entries.length) return;
      await db.run(
        `INSERT INTO key_generations (name, generation) SELECT * FROM unnest($1::text[], $2::bigint[])
         ON CONFLICT (name) DO UPDATE SET generation = greatest(key_generations.generation, excluded.generation)`,
        [entries.map(([n]) => n), entries.map(([, g]) => g)],
      );
    },
  };
}
