// API key generations on SQLite (see the KeyGenerationRecords interface). Their writes commit
// with synchronous = FULL: the store's NORMAL is durable only at checkpoints, and a rotation a
// power cut took from here as well as from keys.json would bring the old key back.
import type { KeyGenerationRecords } from '../state-interface.ts';
import type { StateDb } from './database.ts';
import type { Synchronous } from './serialized.ts';

export function createKeyGenerationRecords(db: StateDb): Synchronous<Omit<KeyGenerationRecords, 'where'>> {
  const all = db.prepare<[], { name: string; generation: number }>(
    'SELECT name, generation FROM key_generations ORDER BY name',
  );
  const rotate = db.prepare<[string, number], { generation: number }>(
    `INSERT INTO key_generations (name, generation) VALUES (?, ? + 1)
     ON CONFLICT (name) DO UPDATE SET generation = max(generation + 1, excluded.generation)
     RETURNING generation`,
  );
  const raise = db.prepare<[string, number]>(
    `INSERT INTO key_generations (name, generation) VALUES (?, ?)
     ON CONFLICT (name) DO UPDATE SET generation = max(generation, excluded.generation)`,
  );
  const durably = <R>(write: () => R): R => {
    db.pragma('synchronous = FULL');
    try {
      return write();
    } finally {
      db.pragma('synchronous = NORMAL');
    }
  };
  return {
    all: () => Object.fromEntries(all.all().map((r) => [r.name, r.generation])),
    rotate: (name, from) => durably(() => rotate.get(name, from)!.generation),
    raise(generations) {
      const entries = Object.entries(generations).filter(([, g]) => g > 1);
      if (!entries.length) return;
      durably(() => db.transaction(() => entries.forEach(([name, g]) => raise.run(name, g)))());
    },
  };
}
