// Which build a running server serves, recorded in the state dir for a `quire publish` on the same
// machine: a webhook must not reach a receiver before the server answers its fetch with the build
// it announces (the receiver would cache the previous version until the next webhook). It also
// records the server's public URL: a build made beside it (no QUIRE_PUBLIC_URL) is made for it.
import fs from 'node:fs';
import path from 'node:path';
import { ensureStateDir } from '../config/state-dir.ts';
import { servedBuildFileOf } from '../config/state-layout.ts';
import { isProcessRunning, processStartTime } from '../host/processes.ts';
import { isMissingFile } from '../problems/problem.ts';
import { readManifest } from '../export/export-files.ts';

/** What a server serves: the record one file holds (the last server to start on this state dir). */
export interface ServedBuild {
  pid: number;
  /**
   * When that process started (processStartTime): a pid the system gave to another process since
   * is not the server. Null where unknown: a record of an older version, a system without /proc.
   */
  startedAt: number | null;
  /** The dist/ it serves, resolved. */
  distDir: string;
  buildId: string;
  /** The server's public URL (the one its builds are made for); null in a record of an older version. */
  publicUrl: string | null;
}

/** A record is well under this; a bigger file is not one (it is never read whole). */
const MAX_RECORD_BYTES = 4096;

/** Written after each swap, by rename: a reader sees the previous record or this one, never part. */
export function recordServedBuild(stateDir: string, served: Omit<ServedBuild, 'startedAt'>): void {
  ensureStateDir(stateDir);
  const file = servedBuildFileOf(stateDir);
  const part = `${file}.${served.pid}.part`;
  fs.writeFileSync(
    part,
    JSON.stringify({ ...served, startedAt: processStartTime(served.pid), distDir: path.resolve(served.distDir) }),
    { mode: 0o600 },
  );
  fs.renameSync(part, file);
}

/** Removes the record when it is this process's (a server that stops serves nothing). */
export function forgetServedBuild(stateDir: string, pid: number): void {
  const served = readServedBuild(stateDir);
  if (served !== null && served !== 'unreadable' && served.pid === pid)
    fs.rmSync(servedBuildFileOf(stateDir), { force: true });
}

/** The record, null when there is none, 'unreadable' when the file is there but is not one. */
export function readServedBuild(stateDir: string): ServedBuild | null | 'unreadable' {
  let text: string;
  try {
    text = readCapped(servedBuildFileOf(stateDir));
  } catch (err) {
    return isMissingFile(err) ? null : 'unreadable';
  }
  try {
    const data = JSON.parse(text) as Partial<ServedBuild> | null;
    if (typeof data?.pid !== 'number' || typeof data.distDir !== 'string' || typeof data.buildId !== 'string')
      return 'unreadable';
    const startedAt = data.startedAt ?? null; // a record written before start times were
    if (startedAt !== null && typeof startedAt !== 'number') return 'unreadable';
    const publicUrl = data.publicUrl ?? null; // a record written before public URLs were
    if (publicUrl !== null && typeof publicUrl !== 'string') return 'unreadable';
    return { pid: data.pid, startedAt, distDir: data.distDir, buildId: data.buildId, publicUrl };
  } catch {
    return 'unreadable';
  }
}

function readCapped(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_RECORD_BYTES + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    if (n > MAX_RECORD_BYTES) throw new Error(`${file} is over ${MAX_RECORD_BYTES} bytes`);
    return buf.toString('utf8', 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** The recorded server still runs: its pid, and (when both are known) the same start time. */
function stillRunning(served: ServedBuild): boolean {
  if (!isProcessRunning(served.pid)) return false;
  const now = served.startedAt === null ? null : processStartTime(served.pid);
  return now === null || now === served.startedAt;
}

/** dist/ holds another build than `buildId` now (mid-swap, or unreadable, counts as not yet). */
function replaced(distDir: string, buildId: string): boolean {
  try {
    const now = readManifest(distDir)?.buildId;
    return now !== undefined && now !== buildId;
  } catch {
    return false;
  }
}

/**
 * The public URL of the live server of `distDir` recorded in `stateDir` (another process than this
 * one), with its pid; null when none runs, the record cannot be read, or it names no URL.
 */
export function runningServerUrl(stateDir: string, distDir: string): { pid: number; publicUrl: string } | null {
  const served = readServedBuild(stateDir);
  if (served === null || served === 'unreadable' || served.publicUrl === null) return null;
  if (served.distDir !== path.resolve(distDir) || served.pid === process.pid || !stillRunning(served)) return null;
  return { pid: served.pid, publicUrl: served.publicUrl };
}

export type ServedWait =
  /** No other live server serves this dist/: nothing to wait for. */
  | { status: 'no-server' }
  /** The record is there but cannot be read: which build a server serves is unknown. */
  | { status: 'unreadable' }
  /** The server serves the build (or a newer one replaced it in dist/). */
  | { status: 'served'; pid: number; waitedMs: number }
  | { status: 'timed-out'; pid: number; waitedMs: number };

/**
 * Waits (up to `timeoutMs`) until the live server of `distDir` recorded in `stateDir`, if any,
 * serves `buildId`. A server that stops, or a newer build in dist/, ends the wait.
 */
export async function untilServed(
  stateDir: string,
  distDir: string,
  buildId: string,
  timeoutMs = 10_000,
  pollMs = 20,
): Promise<ServedWait> {
  const dist = path.resolve(distDir);
  const started = Date.now();
  for (;;) {
    const served = readServedBuild(stateDir);
    if (served === 'unreadable') return { status: 'unreadable' };
    if (!served || served.distDir !== dist || served.pid === process.pid || !stillRunning(served))
      return { status: 'no-server' };
    const waitedMs = Date.now() - started;
    if (served.buildId === buildId || replaced(dist, buildId)) return { status: 'served', pid: served.pid, waitedMs };
    if (waitedMs >= timeoutMs) return { status: 'timed-out', pid: served.pid, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
