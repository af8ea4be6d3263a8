import { defineConfig } from 'vitest/config';

// QUIRE_TEST_STORE=postgres (npm run test:postgres): one PostgreSQL server for the run, and the
// tests of test/postgres/ that need it; the push-path suites named there run on it too.
const onPostgres = process.env.QUIRE_TEST_STORE === 'postgres';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: onPostgres ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/postgres/**'],
    globalSetup: onPostgres ? ['test/helpers/postgres-global-setup.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
