// Per-site key generations in the state dir (keys.json, mode 0600). Absent means generation 1.
// This file is what makes a rotation stick: read wrongly, keys rotated away become valid again.
// So it fails closed: a file that cannot be read or parsed is an error naming it, never "no
// rotations"; a running server keeps the generations it has until the file reads again.
import fs from 'node:fs';
import path from 'node:path';
import { ensureStateDir } from '../config/state-dir.ts';
import { SITE_ID } from '../content/model.ts';
import { isMissingFile, ProblemError } from '../problems/problem.ts';
import { PREVIEW_SUFFIX, type KeyGenerations } from './api-keys.ts';

export const KEYS_FILE = 'keys.json';
/** A site id, or a site id and PREVIEW_SUFFIX: what keys.json keeps generations under. */
const KEY_NAME = new RegExp(`^${SITE_ID.source.slice(1, -1)}(?:\\${PREVIEW_SUFFIX})?$`);
const MAX_KEYS_FILE_BYTES = 1024 * 1024;

export class KeyStateError extends ProblemError<'KEY_STATE_UNREADABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('KEY_STATE_UNREADABLE', message, options);
    this.name = 'KeyStateError';
  }
}

export interface KeyGenerationFile extends KeyGenerations {
  /** The file, for messages. */
  readonly file: string;
  /** Every site with a generation above 1. */
  all(): Record<string, number>;
  rotate(siteId: string): number;
  /**
   * Re-reads the file when it changed on disk (a rotation by another process). A file that no
   * longer reads keeps the generations held now and calls `onError`: it never reverts them.
   */
  refresh(onError?: (err: KeyStateError) => void): boolean;
}

/** Reads keys.json: null when absent; throws KeyStateError naming it when it cannot be used. */
export function readKeyGenerations(file: string): Record<string, number> | null {
  const broken = (why: string, cause?: unknown) =>
    new KeyStateError(
      `${file} cannot be used (${why}). It holds each site's API key generation: without it, keys rotated away would be valid again. ` +
        `Restore it from a backup, or write the generations back as JSON ({"<site>": <generation>}; a generation higher than any used before gives the site a new key).`,
      { cause },
    );
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw broken('not a file');
    if (stat.size > MAX_KEYS_FILE_BYTES) throw broken(`larger than ${MAX_KEYS_FILE_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof KeyStateError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw broken((err as Error).message, err);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw broken(text.trim() === '' ? 'it is empty' : `not JSON: ${(err as Error).message}`, err);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw broken('not a JSON object of site ids and generations');
  const generations: Record<string, number> = {};
  for (const [site, generation] of Object.entries(data)) {
    if (!KEY_NAME.test(site)) throw broken(`"${site}" is not a site id (or a site id followed by ${PREVIEW_SUFFIX})`);
    if (!Number.isSafeInteger(generation) || (generation as number) < 1) throw broken(`the generation of "${site}" is not a whole number of at least 1`);
    generations[site] = generation as number;
  }
  return generations;
}

/** Per site the higher of two generations: a generation held never goes back down. */
function atLeast(held: Record<string, number>, read: Record<string, number>): Record<string, number> {
  const merged = { ...held };
  for (const [site, generation] of Object.entries(read)) merged[site] = Math.max(merged[site] ?? 1, generation);
  return merged;
}

export function openKeyGenerations(stateDir: string): KeyGenerationFile {
  const file = path.join(stateDir, KEYS_FILE);
  let data: Record<string, number> = {};
  let stamp = '';
  let failedStamp = '';
  const stampOf = () => {
    try {
      const s = fs.statSync(file);
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch (err) {
      // Only a stamp: the read that follows a change reports what is wrong with the file.
      return isMissingFile(err) ? 'none' : `error:${(err as NodeJS.ErrnoException).code}`;
    }
  };
  const load = () => {
    const next = stampOf();
    data = readKeyGenerations(file) ?? {};
    stamp = next;
  };
  load();
  return {
    file,
    generationOf: (siteId) => data[siteId] ?? 1,
    all: () => ({ ...data }),
    rotate(siteId) {
      data = atLeast(data, readKeyGenerations(file) ?? {});
      data[siteId] = (data[siteId] ?? 1) + 1;
      ensureStateDir(stateDir);
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
      fs.renameSync(tmp, file);
      stamp = stampOf();
      return data[siteId]!;
    },
    refresh(onError) {
      const now = stampOf();
      if (now === stamp || now === failedStamp) return false;
      try {
        const next = readKeyGenerations(file);
        // Gone while serving: the generations held stay (a missing file would revert rotations).
        if (next === null) throw new KeyStateError(`${file} was removed; the key generations already loaded stay in force. Restore it (or rotate a key to write it again).`);
        data = atLeast(data, next);
        stamp = now;
        failedStamp = '';
        return true;
      } catch (err) {
        failedStamp = now;
        if (!(err instanceof KeyStateError)) throw err;
        onError?.(err);
        return false;
      }
    },
  };
}
