// The identity change-feed cursors carry (see the ChangeLog interface), on PostgreSQL. It is a row
// of the state, so a pg_dump holds it, and a dump restored into another database (or into the same
// name re-created) would answer the original's cursors, though its log went back to the dump and
// goes on with other changes at the same positions: a client would skip them silently. So the row
// also names where it was made: the cluster's system identifier (initdb's), the database's OID and
// the OID of the identity's own table, which a restore from a dump never keeps (into the same
// database too: `pg_restore --clean` makes the table again). Elsewhere the identity is another
// one, derived from the stored id and the OIDs, the same on every start; cursors of the original
// expire there. What copies a database whole (a standby promoted, a file-level backup) keeps all
// three: the same store.
import { createHash } from 'node:crypto';
import type { Db } from './connection.ts';

/**
 * Where this connection's store is: `<system identifier>/<database OID>/<OID of store_identity>`.
 * Read once the migrations have made the table.
 */
export async function readDatabaseKey(db: Db): Promise<string> {
  const [{ oid, table }] = (await db.rows<{ oid: string; table: string }>(
    "SELECT d.oid::text AS oid, 'store_identity'::regclass::oid::text AS table FROM pg_database d WHERE d.datname = current_database()",
  )) as [{ oid: string; table: string }];
  return `${await readSystemIdentifier(db)}/${oid}/${table}`;
}

/**
 * initdb's identifier of the cluster; '' where it cannot be read: a role without the right to, or
 * a PostgreSQL-compatible service without the function. The store opens there too, and the
 * identity rests on the OIDs alone (see sameDatabase).
 */
async function readSystemIdentifier(db: Db): Promise<string> {
  try {
    const [{ allowed }] = (await db.rows<{ allowed: boolean }>(
      "SELECT has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE') AS allowed",
    )) as [{ allowed: boolean }];
    if (!allowed) return '';
    return (
      (await db.rows<{ id: string }>('SELECT system_identifier::text AS id FROM pg_catalog.pg_control_system()'))[0]
        ?.id ?? ''
    );
  } catch (err) {
    // SQLSTATE class 42: no such function, no privilege. Anything else (the connection) is real.
    if (typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('42'))
      return '';
    throw err;
  }
}

/**
 * Whether two keys name one database. The cluster part is compared only where both sides could
 * read it, so servers connecting with roles of different rights agree on the identity.
 */
export function sameDatabase(recorded: string, current: string): boolean {
  if (recorded === current) return true;
  const [recordedSystem, ...recordedOids] = recorded.split('/');
  const [currentSystem, ...currentOids] = current.split('/');
  if (recordedSystem && currentSystem) return false;
  return recordedOids.join('/') === currentOids.join('/');
}

/**
 * Records where the identity was made, once (a store made before this was recorded claims it at
 * its next start). One recorded without the table's OID (`<system>/<database>`) that names this
 * database takes this key whole.
 */
export async function claimIdentity(tx: Db, databaseKey: string): Promise<void> {
  const withoutTable = databaseKey.slice(0, databaseKey.lastIndexOf('/'));
  await tx.run('UPDATE store_identity SET made_in = $1 WHERE made_in IS NULL OR made_in = $2', [
    databaseKey,
    withoutTable,
  ]);
}

/** The identity in the database `databaseKey`: the stored one where it was made, else one of this database. */
export function identityIn(row: { id: string; made_in: string | null }, databaseKey: string): string {
  if (row.made_in === null || sameDatabase(row.made_in, databaseKey)) return row.id;
  // From the OIDs only, so every role derives the same one (the cluster part may be unreadable).
  const oids = databaseKey.slice(databaseKey.indexOf('/') + 1);
  return createHash('sha256').update(`${row.id}/${oids}`).digest('hex').slice(0, 16);
}
