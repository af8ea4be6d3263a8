// `quire state backup <dir> [--force]`: a consistent copy of the state, safe while a server runs.
import path from 'node:path';
import { backupState, StateBackupError } from '../../store/state-store.ts';
import type { CliContext } from '../context.ts';

export function runStateBackup({ config, out, err }: CliContext, opts: { target: string; force: boolean }): number {
  const target = path.resolve(opts.target);
  try {
    const s = backupState(config.stateDir, target, { force: opts.force });
    out(`Backed up ${config.stateDir} to ${target}: ${s.files.join(', ')} (${s.webhooks} webhook${s.webhooks === 1 ? '' : 's'}, ${s.deliveries} deliver${s.deliveries === 1 ? 'y' : 'ies'}).`);
    if (config.secret !== null) out('The server secret comes from QUIRE_SECRET and is not in the backup: restore with the same QUIRE_SECRET, or webhook secrets cannot be opened.');
    else if (!s.files.includes('secret')) err(`warning: ${path.join(config.stateDir, 'secret')} does not exist, so the backup holds no server secret.`);
    return 0;
  } catch (e) {
    if (!(e instanceof StateBackupError)) throw e;
    err(e.message);
    return 1;
  }
}
