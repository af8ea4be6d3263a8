// `quire state backup <dir> [--force]`: a consistent copy of the state, safe while a server runs.
// `quire state migrate-to-postgres`: the SQLite state copied into PostgreSQL (QUIRE_DATABASE_URL).
import path from 'node:path';
import { secretFileOf, SECRET_FILE, stateDbFileOf } from '../../config/state-layout.ts';
import { backupState, copySqliteStateToPostgres, StateBackupError, StateStoreError } from '../../store/state-store.ts';
import type { CliContext } from '../context.ts';
import { errorText, withCode } from '../../problems/problem.ts';

export function runStateBackup({ config, out, err }: CliContext, opts: { target: string; force: boolean }): number {
  const target = path.resolve(opts.target);
  try {
    const s = backupState(config.stateDir, target, { force: opts.force });
    out(
      `Backed up ${config.stateDir} to ${target}: ${s.files.join(', ')} (${s.webhooks} webhook${s.webhooks === 1 ? '' : 's'}, ${s.deliveries} deliver${s.deliveries === 1 ? 'y' : 'ies'}).`,
    );
    if (config.secret !== null)
      out(
        'The server secret comes from QUIRE_SECRET and is not in the backup: restore with the same QUIRE_SECRET, or webhook secrets cannot be opened.',
      );
    else if (!s.files.includes(SECRET_FILE))
      err(`warning: ${secretFileOf(config.stateDir)} does not exist, so the backup holds no server secret.`);
    return 0;
  } catch (e) {
    if (!(e instanceof StateBackupError)) throw e;
    err(errorText(e));
    return 1;
  }
}

export async function runMigrateToPostgres({ config, out, err }: CliContext): Promise<number> {
  if (config.databaseUrl === null) {
    err(
      withCode(
        'quire state migrate-to-postgres: set QUIRE_DATABASE_URL to the (empty) PostgreSQL database to copy the state into',
        'CONFIG_INVALID',
      ),
    );
    return 2;
  }
  try {
    const s = await copySqliteStateToPostgres(config.stateDir, config.databaseUrl);
    const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
    out(
      `Copied ${stateDbFileOf(config.stateDir)} into PostgreSQL: ${n(s.webhooks, 'webhook', 'webhooks')}, ${n(s.deliveries, 'delivery', 'deliveries')}, ${n(s.attempts, 'attempt', 'attempts')}, ${n(s.sites, 'site', 'sites')} published, ${n(s.keyGenerations, 'rotated key', 'rotated keys')}.`,
    );
    out(
      'Every process using this state must now run with QUIRE_DATABASE_URL set (and the same server secret); quire.db is left as it was.',
    );
    return 0;
  } catch (e) {
    if (!(e instanceof StateStoreError)) throw e;
    err(errorText(e));
    return 1;
  }
}
