// The PostgreSQL store's identity where the cluster's system identifier cannot be read. The
// restore itself is tested against a real server (test/postgres/restore-identity.test.ts); a
// real server cannot be made to lack pg_control_system() or, without a cluster-wide REVOKE that
// would reach every other test, to refuse it to one role, so these cases give readDatabaseKey a
// stand-in connection that answers as such a server does (SQLSTATE 42883, 42501).
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/postgres/connection.ts';
import { identityIn, readDatabaseKey, sameDatabase } from '../../src/store/postgres/store-identity.ts';

function serverWhere(controlSystem: 'readable' | 'refused' | 'missing' | 'down'): Db {
  const fail = (code: string, message: string) => Promise.reject(Object.assign(new Error(message), { code }));
  const db = {
    async rows(text: string) {
      if (text.includes('pg_database')) return [{ oid: '16384', table: '16390' }];
      if (text.includes('has_function_privilege')) {
        if (controlSystem === 'missing') return fail('42883', 'function pg_catalog.pg_control_system() does not exist');
        if (controlSystem === 'down') return fail('57P01', 'terminating connection due to administrator command');
        return [{ allowed: controlSystem !== 'refused' }];
      }
      if (text.includes('pg_control_system')) return [{ id: '7311' }];
      throw new Error(`unexpected query: ${text}`);
    },
  };
  return db as unknown as Db;
}

describe('the PostgreSQL store identity without the cluster identifier', () => {
  it('names the cluster where it can be read, and opens without it where the function is refused or missing', async () => {
    expect(await readDatabaseKey(serverWhere('readable'))).toBe('7311/16384/16390');
    expect(await readDatabaseKey(serverWhere('refused'))).toBe('/16384/16390');
    expect(await readDatabaseKey(serverWhere('missing'))).toBe('/16384/16390');
  });

  it('does not take a lost connection for a missing function', async () => {
    await expect(readDatabaseKey(serverWhere('down'))).rejects.toMatchObject({ code: '57P01' });
  });

  it('gives roles with and without the right to read the cluster identifier the same identity', () => {
    const recorded = { id: 'a1b2c3d4e5f60718', made_in: '7311/16384/16390' };
    expect(identityIn(recorded, '/16384/16390')).toBe(recorded.id);
    expect(identityIn({ ...recorded, made_in: '/16384/16390' }, '7311/16384/16390')).toBe(recorded.id);
    // A restore elsewhere: every role derives one other identity.
    const elsewhere = [identityIn(recorded, '7311/16400/16410'), identityIn(recorded, '/16400/16410')];
    expect(elsewhere[0]).not.toBe(recorded.id);
    expect(elsewhere[1]).toBe(elsewhere[0]);
  });

  it('still tells two clusters apart where both sides read their identifier', () => {
    expect(sameDatabase('7311/16384/16390', '9999/16384/16390')).toBe(false);
    expect(sameDatabase('7311/16384/16390', '7311/16384/16390')).toBe(true);
    expect(sameDatabase('7311/16384/16390', '7311/16384/16391')).toBe(false);
    expect(identityIn({ id: 'a1b2c3d4e5f60718', made_in: '7311/16384/16390' }, '9999/16384/16390')).not.toBe(
      'a1b2c3d4e5f60718',
    );
  });
});
