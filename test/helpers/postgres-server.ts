// A real PostgreSQL server for the tests that run on it (QUIRE_TEST_STORE=postgres): Debian's
// `postgresql` package (installed by .ci/run), a cluster made by initdb in a temp dir, listening on
// a loopback port, run by a user that is not root (PostgreSQL refuses root: as root, the tests
// run it as `postgres` through runuser). Password login, so a wrong password can be tested.
// Started once per test run (vitest globalSetup) and torn down after; each temp project gets a
// database of its own (test-store.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './nginx.ts';

export const TEST_PG_PASSWORD = 'quire-test-password';

export interface RunningPostgres {
  /** The superuser's URL to the `postgres` database. */
  adminUrl: string;
  port: number;
  stop(): void;
}

/** The directory of initdb and pg_ctl: Debian keeps them under /usr/lib/postgresql/<version>/bin. */
export function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : null;
}

export async function startPostgres(): Promise<RunningPostgres> {
  const bin = findPostgresBin();
  if (!bin)
    throw new Error(
      "PostgreSQL is not installed (initdb not found): install Debian's `postgresql` package (.ci/run does)",
    );
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pg-'));
  const run = (cmd: string, args: string[]) => {
    const [c, a] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
    execFileSync(c, a, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  if (asRoot) execFileSync('chown', ['postgres:', dir]);
  fs.chmodSync(dir, 0o700);
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, TEST_PG_PASSWORD);
  if (asRoot) execFileSync('chown', ['postgres:', pwfile]);
  const data = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--pwfile',
    pwfile,
    '-A',
    'scram-sha-256',
    '-E',
    'UTF8',
    '--locale',
    'C',
    '--no-sync',
  ]);
  const port = await freePort();
  // A test server: durability off (a crash loses a test run, nothing else), loopback only.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  return {
    adminUrl: `postgres://postgres:${TEST_PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop() {
      try {
        run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
