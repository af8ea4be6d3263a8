import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects in one run, so that one pool of test processes takes files from both:
// - `sqlite`: every test, on the store a user who sets nothing has;
// - `postgres`: the push-path suites again on one PostgreSQL server for the run (started by the
//   global setup, its URL handed to the test processes and the CLI processes they start), and
//   the tests of test/postgres/ that need it.
// `npm run test:postgres` is `vitest run --project postgres`.
const POSTGRES_SUITES = [
  'test/postgres/**/*.test.ts',
  'test/publish/**/*.test.ts',
  'test/delivery/**/*.test.ts',
  'test/store/key-generations.test.ts',
  'test/keys/recorded-generations.test.ts',
  'test/admin/publishing-forms.test.ts',
  'test/admin/send-pending.test.ts',
  'test/admin/undelivered.test.ts',
  'test/e2e/live-verification.test.ts',
];

// `npm run test:quick`, the edit loop: the sqlite project without the suites that drive whole
// processes end to end (publish, deliveries, following git, scheduling, the framework kits, the
// CLI's commands, the browser, the edge and deploy). `npm test` runs everything.
const QUICK_SKIPS = ['test/{publish,delivery,e2e,examples,astro,follow,cli,admin,edge,deploy,integration}/**'];
const quick = process.env.QUIRE_TEST_QUICK === '1';

// Most test files wait on real parts (servers, git, PostgreSQL, Chromium, framework builds)
// far more than they compute, so more processes than cores keep the cores busy; vitest's
// default (cores - 1) runs one file at a time on 2 cores. QUIRE_TEST_WORKERS overrides.
const workers = Number(process.env.QUIRE_TEST_WORKERS) || Math.max(2, os.availableParallelism() + 1);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/postgres/**', ...(quick ? QUICK_SKIPS : [])],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: POSTGRES_SUITES,
          env: { QUIRE_TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
