// vitest globalSetup when QUIRE_TEST_STORE=postgres: one PostgreSQL server for the whole run,
// its URL handed to the test workers (and the CLI processes they start) in the environment.
import { startPostgres } from './postgres-server.ts';

export default async function setup(): Promise<() => void> {
  const pg = await startPostgres();
  process.env.QUIRE_TEST_POSTGRES_URL = pg.adminUrl;
  return () => pg.stop();
}
