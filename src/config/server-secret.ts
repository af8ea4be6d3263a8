// The server secret signs API keys. When QUIRE_SECRET is unset, one is generated into the state dir
// (mode 0600) on first use and reused after, so keys stay stable across restarts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { QuireConfig } from './config.ts';
import { ensureStateDir } from './state-dir.ts';
import { secretFileOf } from './state-layout.ts';

export function loadServerSecret(config: Pick<QuireConfig, 'secret' | 'stateDir'>): string {
  if (config.secret) return config.secret;
  ensureStateDir(config.stateDir);
  const file = secretFileOf(config.stateDir);
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it to generate a new one`);
  }
  return secret;
}
