// Per-site key generations in the state dir (keys.json, mode 0600). Absent means generation 1.
// This file is what makes a rotation stick: read wrongly, keys rotated away become valid again.
// So it fails closed: a file that cannot be read or parsed is an error naming it, never "no
// rotations"; a running server keeps the generations it has until the file reads again. The
// state store keeps a second copy, written first on a rotation (recorded-generations.ts checks
// the two at start), so losing this file alone cannot undo one.
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../config/state-dir.ts';
import { SITE_ID } from '../content/model.ts';
import { isMissingFile, ProblemError } from '../problems/problem.ts';
import type { KeyGenerationRecords } from '../store/state-store.ts';
import { PREVIEW_SUFFIX, type KeyGenerations } from './api-keys.ts';

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
  /** Records a new generation in the state store, then in the file; resolves to it once both hold it. */
  rotate(siteId: string): Promise<number>;
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
        `Restore it from a backup; or move it aside and run \`quire keys restore\` (writes it from the state store's copy); or write the generations back as JSON ({"<site>": <generation>}; a generation higher than any used before gives the site a new key).`,
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
    if (isMissingFile(err)) return null;
    throw broken((err as Error).message, err);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw broken(text.trim() === '' ? 'it is empty' : `not JSON: ${(err as Error).message}`, err);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw broken('not a JSON object of site ids and generations');
  const generations: Record<string, number> = {};
  for (const [site, generation] of Object.entries(data)) {
    if (!KEY_NAME.test(site)) throw broken(`"${site}" is not a site id (or a site id followed by ${PREVIEW_SUFFIX})`);
    if (!Number.isSafeInteger(generation) || (generation as number) < 1)
      throw broken(`the generation of "${site}" is not a whole number of at least 1`);
    generations[site] = generation as number;
  }
  return generations;
}

/** `the key of site "one"`, or `the preview key of site "one"`: a key name as messages say it. */
export function keyOfSite(name: string): string {
  return name.endsWith(PREVIEW_SUFFIX)
    ? `the preview key of site "${name.slice(0, -PREVIEW_SUFFIX.length)}"`
    : `the key of site "${name}"`;
}

/** Per site the higher of two generations: a generation held never goes back down. */
export function atLeast(held: Record<string, number>, read: Record<string, number>): Record<string, number> {
  const merged = { ...held };
  for (const [site, generation] of Object.entries(read)) merged[site] = Math.max(merged[site] ?? 1, generation);
  return merged;
}

/** Writes keys.json whole (a temporary file renamed into place), on disk before it returns. */
export function writeKeyGenerations(file: string, generations: Record<string, number>): void {
  makePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, `${JSON.stringify(generations, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** The state store's copy of the generations, or why it could not be read. */
export type StoreCopy = { records: KeyGenerationRecords; atStart: Record<string, number> } | { unreadable: Error };

/**
 * keys.json's generations (`read`: as read at start), and the store's copy. A generation is the
 * higher of the two (the start check makes them equal for the keys it covers; for any other
 * key, one the store has and keys.json lacks is never served lower).
 */
export function openKeyGenerations(file: string, read: Record<string, number>, store: StoreCopy): KeyGenerationFile {
  let data: Record<string, number> = { ...read };
  const recorded = 'records' in store ? { ...store.atStart } : {};
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
  // Stamped, then read again: a rotation by another process since `read` is not missed by refresh.
  stamp = stampOf();
  data = atLeast(data, readKeyGenerations(file) ?? {});
  const generationOf = (name: string) => Math.max(data[name] ?? 1, recorded[name] ?? 1);
  return {
    file,
    generationOf,
    all: () => ({ ...data }),
    async rotate(siteId) {
      if (!('records' in store)) {
        throw new KeyStateError(
          `no key was rotated: a rotation is recorded in the state store before ${file}, and the store cannot be read (${store.unreadable.message})`,
          { cause: store.unreadable },
        );
      }
      data = atLeast(data, readKeyGenerations(file) ?? {}); // a damaged file stops the rotation before anything is written
      // The store first: a rotation it holds is never undone by a keys.json lost or left behind.
      const generation = await store.records.rotate(siteId, generationOf(siteId));
      recorded[siteId] = Math.max(recorded[siteId] ?? 1, generation);
      try {
        // Read again just before writing: another process may have rotated meanwhile.
        data = atLeast(atLeast(data, readKeyGenerations(file) ?? {}), { [siteId]: generation });
        writeKeyGenerations(file, data);
      } catch (err) {
        const why = err instanceof KeyStateError ? err.message : (err as Error).message;
        throw new KeyStateError(
          `${keyOfSite(siteId)} is at generation ${generation} in ${store.records.where}, but ${file} could not be written (${why}). ` +
            `Until it is, a server reading it keeps the previous key and the next start is refused: fix the file, then run \`quire keys restore\`.`,
          { cause: err },
        );
      }
      stamp = stampOf();
      return generation;
    },
    refresh(onError) {
      const now = stampOf();
      if (now === stamp || now === failedStamp) return false;
      try {
        const next = readKeyGenerations(file);
        // Gone while serving: the generations held stay (a missing file would revert rotations).
        if (next === null)
          throw new KeyStateError(
            `${file} was removed; the key generations already loaded stay in force. Restore it (\`quire keys restore\` writes it from the state store).`,
          );
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
