// What every command gets: the config, loaded once, and where to print.
import type { QuireConfig } from '../config/config.ts';
import { loadServerSecret } from '../config/server-secret.ts';
import { createKeyring } from '../keys/api-keys.ts';
import { openKeyGenerations } from '../keys/key-generations.ts';

export interface CliContext {
  config: QuireConfig;
  out: (line: string) => void;
  err: (line: string) => void;
}

export function createKeyringFor(config: QuireConfig) {
  const generations = openKeyGenerations(config.stateDir);
  return { keyring: createKeyring(loadServerSecret(config), generations), generations };
}
