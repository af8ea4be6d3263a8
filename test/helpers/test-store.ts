// The store the push-path tests run on: SQLite in the state dir, as a user who sets nothing has;
// or, with QUIRE_TEST_STORE=postgres (npm run test:postgres), PostgreSQL on the test server
// (postgres-server.ts) in a database of the state dir's own, so concurrent tests never share state.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { findPostgresBin } from './postgres-server.ts';

export const onPostgres = process.env.QUIRE_TEST_STORE === 'postgres';

const made = new Set<string>();

/** A database of its own for `stateDir` on the test server (made once); null on SQLite. */
export function testDatabaseUrl(stateDir: string): string | null {
  if (!onPostgres) return null;
  const admin = process.env.QUIRE_TEST_POSTGRES_URL;
  if (!admin) throw new Error('QUIRE_TEST_STORE=postgres but no test server was started (vitest.config.ts starts it)');
  const name = `quire_${createHash('sha256').update(path.resolve(stateDir)).digest('hex').slice(0, 24)}`;
  if (!made.has(name)) {
    const psql = path.join(findPostgresBin() ?? '', 'psql');
    try {
      execFileSync(psql, [admin, '-qAtc', `CREATE DATABASE ${name}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      if (!/already exists/.test(String((e as { stderr?: Buffer }).stderr ?? ''))) throw e;
    }
    made.add(name);
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The environment that points a `quire` process at the state dir's store. */
export function storeEnv(stateDir: string): Record<string, string> {
  const url = testDatabaseUrl(stateDir);
  return url ? { QUIRE_DATABASE_URL: url } : {};
}

export function openTestStore(stateDir: string, serverSecret: string): StateStore {
  return openStateStore(stateDir, serverSecret, testDatabaseUrl(stateDir));
}
