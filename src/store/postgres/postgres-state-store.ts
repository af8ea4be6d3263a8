// The state store on PostgreSQL (QUIRE_DATABASE_URL): a pool, the schema brought up to date once
// at first use (ready()), and the operations over it. A transaction runs on one connection of
// the pool and its `tx` is bound to it.
import { createSecretBox } from '../secret-box.ts';
import type { StateParts, StateStore } from '../state-interface.ts';
import {
  createPool,
  dedicatedConnection,
  describeUrl,
  explainConnectionError,
  inTransaction,
  poolDb,
  type Db,
} from './connection.ts';
import { createChangeLog } from './change-log.ts';
import { watchDue } from './due-watch.ts';
import { createHostSlots } from './host-slots.ts';
import { createKeyGenerationRecords } from './key-generations.ts';
import { createLocks } from './locks.ts';
import { migrate } from './migrations.ts';
import { createOutbox, IN_INDEX_ORDER } from './outbox.ts';
import { createPageChecks } from './page-checks.ts';
import { createPublishRecords } from './publish-state.ts';
import { claimIdentity, readDatabaseKey } from './store-identity.ts';
import { createWebhooks } from './webhooks.ts';

export function openPostgresStateStore(
  url: string,
  serverSecret: string,
  opts: { poolSize?: number } = {},
): StateStore {
  const pool = createPool(url, opts.poolSize);
  const box = createSecretBox(serverSecret);
  let readying: Promise<void> | null = null;
  let databaseKey: string | null = null;
  const ready = () =>
    (readying ??= (async () => {
      // Connecting first: a server that cannot be used is told as such.
      const client = await pool.connect().catch((e: unknown) => {
        throw explainConnectionError(e, url);
      });
      client.release();
      databaseKey = await inTransaction(pool, async (tx) => {
        await migrate(tx, describeUrl(url));
        const key = await readDatabaseKey(tx);
        await claimIdentity(tx, key);
        return key;
      });
    })().catch((e: unknown) => {
      readying = null; // the next operation tries again (the server may be back)
      throw e;
    }));
  // Every site's claims on a connection of their own (opened by the first), outside transactions.
  const claims = dedicatedConnection(url, 'quire claims', IN_INDEX_ORDER, ready);
  const partsOn = (db: Db, claimsOn: typeof claims | null = null): StateParts => {
    const changes = createChangeLog(db, () => databaseKey!);
    return {
      webhooks: createWebhooks(db, box),
      outbox: createOutbox(db, claimsOn),
      published: createPublishRecords(db, changes),
      changes,
    };
  };
  const onPool = poolDb(pool, ready);
  return {
    writes: 'round-trip',
    ...partsOn(onPool, claims),
    hostSlots: createHostSlots(onPool),
    pageChecks: createPageChecks(onPool),
    keyGenerations: createKeyGenerationRecords(onPool, `the PostgreSQL state at ${describeUrl(url)}`),
    locks: createLocks(url, ready),
    ready,
    watchDue: (wake) => watchDue(url, ready, wake),
    async transaction(work) {
      await ready();
      return inTransaction(pool, (db) => work(partsOn(db)));
    },
    async close() {
      await claims.close();
      await pool.end();
    },
  };
}
