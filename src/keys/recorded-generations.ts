// keys.json against the state store's copy of the key generations, when a process that serves or
// shows keys starts. A rotation is committed to the store before keys.json is written, so
// keys.json below the store for a key (lost, reset, an older copy restored, a write that failed)
// lacks a rotation: refused, naming both places, never served at the lower generation. keys.json
// above the store (a store from before it kept a copy, one restored from an older backup, a
// generation written by hand) raises the store to it: a higher generation brings no key back.
// Only this project's keys are compared: another project may share a PostgreSQL state, and its
// keys are its own (a key the store has and keys.json lacks is still never served lower).
import { ProblemError } from '../problems/problem.ts';
import type { KeyGenerationRecords } from '../store/state-store.ts';
import { previewKeyName } from './api-keys.ts';
import { keysFileOf } from '../config/state-layout.ts';
import {
  atLeast,
  keyOfSite,
  openKeyGenerations,
  readKeyGenerations,
  writeKeyGenerations,
  type KeyGenerationFile,
} from './key-generations.ts';

export class KeyStateBehindError extends ProblemError<'KEY_STATE_BEHIND_STORE'> {
  constructor(message: string) {
    super('KEY_STATE_BEHIND_STORE', message);
    this.name = 'KeyStateBehindError';
  }
}

/** The state store's key generations, or why the store could not be read. */
export type StoreRecords = { records: KeyGenerationRecords } | { unreadable: Error };

/** The names a project's sites keep generations under: each site's key and its preview key. */
export function keyNamesOf(siteIds: Iterable<string>): string[] {
  return [...siteIds].flatMap((id) => [id, previewKeyName(id)]);
}

/**
 * keys.json's generations, checked against the store's for the keys of `siteIds` and every key
 * keys.json has; the store raised to keys.json's. Throws KeyStateBehindError when keys.json is
 * missing or lower than the store for one of them. A store that cannot be read leaves keys.json
 * unchecked (the caller says so) and refuses rotations.
 */
export async function openCheckedKeyGenerations(
  stateDir: string,
  store: StoreRecords,
  siteIds: Iterable<string>,
): Promise<KeyGenerationFile> {
  const file = keysFileOf(stateDir);
  const read = readKeyGenerations(file);
  if ('unreadable' in store) return openKeyGenerations(file, read ?? {}, store);
  const recorded = await store.records.all();
  const behind = keysBehind(read ?? {}, recorded, [...keyNamesOf(siteIds), ...Object.keys(read ?? {})]);
  if (behind.length) throw behindError(file, read === null, store.records.where, behind);
  await store.records.raise(read ?? {});
  return openKeyGenerations(file, read ?? {}, { records: store.records, atStart: atLeast(recorded, read ?? {}) });
}

export interface RestoredKey {
  name: string;
  /** keys.json's generation before (1: it had none). */
  from: number;
  to: number;
}

/**
 * `quire keys restore`: keys.json written with, for the keys of `siteIds` and every key it has,
 * the higher of its generation and the store's (a missing keys.json is made); the store raised
 * to keys.json's. A keys.json that cannot be read is left for the operator (KeyStateError).
 */
export async function restoreKeysFile(
  stateDir: string,
  records: KeyGenerationRecords,
  siteIds: Iterable<string>,
): Promise<{ file: string; restored: RestoredKey[] }> {
  const file = keysFileOf(stateDir);
  const read = readKeyGenerations(file) ?? {};
  const recorded = await records.all();
  await records.raise(read);
  const behind = keysBehind(read, recorded, [...keyNamesOf(siteIds), ...Object.keys(read)]);
  const restored = behind.map(([name, held, stored]) => ({ name, from: held, to: stored }));
  writeKeyGenerations(file, atLeast(read, Object.fromEntries(restored.map((r) => [r.name, r.to]))));
  return { file, restored };
}

/** [name, keys.json's generation, the store's] for each of `names` the store has higher. */
function keysBehind(
  held: Record<string, number>,
  recorded: Record<string, number>,
  names: string[],
): [string, number, number][] {
  const behind = new Map<string, [string, number, number]>();
  for (const name of names) {
    const stored = recorded[name] ?? 1;
    if (stored > (held[name] ?? 1)) behind.set(name, [name, held[name] ?? 1, stored]);
  }
  return [...behind.values()].sort(([a], [b]) => a.localeCompare(b));
}

function behindError(
  file: string,
  missing: boolean,
  where: string,
  behind: [string, number, number][],
): KeyStateBehindError {
  const listed = behind
    .map(
      ([name, held, stored]) =>
        `${keyOfSite(name)} is at generation ${missing ? stored : `${held} here and ${stored} there`}`,
    )
    .join('; ');
  return new KeyStateBehindError(
    `${missing ? `${file} is missing, but ${where} recorded key rotations` : `${file} is behind ${where}`}: ${listed}. ` +
      `Started ${missing ? 'without it' : 'with it'}, keys rotated away would be valid again. ` +
      `Restore ${file} from a backup, or run \`quire keys restore\` to write the state store's generations into it.`,
  );
}
