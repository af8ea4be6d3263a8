// Where each previewed branch is kept in the state dir (follow/branches/, state-layout.ts), and
// its record: the branch's name, when it was last pushed (the order in which branches are dropped
// past QUIRE_PREVIEW_BRANCHES_MAX) and the commit its preview was built from. A branch's folder
// is named by a hash of its name, so no name from the remote becomes a path. Written by the server
// that previews, read by it again after a restart and by commands beside it (`quire preview --ref`).
// The records are output, not state: one that is missing or damaged is a branch to fetch again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir } from '../config/state-dir.ts';
import { isMissingFile } from '../problems/problem.ts';
import { branchProblem } from './follow-source.ts';

/** The shared repository's folder and the render cache's: no branch folder can be named so. */
export const REPOSITORY_FOLDER = 'repo';

const RECORD_FILE = 'branch.json';
/** The followed branch's name, for commands beside the server (the base `--changed` compares with). */
const FOLLOWED_FILE = 'followed.json';
const FOLDER = /^b-[0-9a-f]{24}$/;

export interface BranchRecord {
  branch: string;
  /** When the server saw the branch's newest commit arrive (ms since the epoch); 0: before it started. */
  pushedAt: number;
  /** The commit the preview in dist/ was built from; null before its first good build. */
  built: string | null;
}

export interface BranchPaths {
  /** The branch's folder. */
  dir: string;
  /** Its working tree (a worktree of the shared repository). */
  checkout: string;
  /** The content tree its builds read. */
  content: string;
  /** Its export: never QUIRE_DIST_DIR, never public. */
  dist: string;
  /** Its build's own state dir: build caches and its drafts' preview trees. */
  state: string;
}

/** The folder of `branch` under `root` (follow/branches/), by a hash of its name. */
export function branchPaths(root: string, branch: string): BranchPaths {
  const dir = path.join(root, `b-${createHash('sha256').update(branch).digest('hex').slice(0, 24)}`);
  const checkout = path.join(dir, 'checkout');
  return {
    dir,
    checkout,
    content: path.join(checkout, 'content'),
    dist: path.join(dir, 'dist'),
    state: path.join(dir, 'state'),
  };
}

/** The record in a branch folder; null when it is missing or is not one (the folder is then not trusted). */
export function readBranchRecord(dir: string): BranchRecord | null {
  let data: Partial<BranchRecord> | null;
  try {
    data = JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as Partial<BranchRecord> | null;
  } catch (err) {
    if (isMissingFile(err) || err instanceof SyntaxError) return null;
    throw err;
  }
  if (
    typeof data?.branch !== 'string' ||
    branchProblem(data.branch) !== null ||
    !Number.isSafeInteger(data.pushedAt) ||
    (data.built !== null && !/^[0-9a-f]{40,64}$/.test(String(data.built)))
  )
    return null;
  return { branch: data.branch, pushedAt: data.pushedAt as number, built: data.built ?? null };
}

/** Writes the record whole (a reader never sees half of one). */
export function writeBranchRecord(dir: string, record: BranchRecord): void {
  writeWhole(dir, RECORD_FILE, record);
}

/** Records which branch the server follows (`root`: follow/branches/). */
export function writeFollowedBranch(root: string, branch: string): void {
  writeWhole(root, FOLLOWED_FILE, { branch });
}

/** The branch the server beside this process follows, as it recorded it; null when it did not. */
export function readFollowedBranch(root: string): string | null {
  try {
    const data = JSON.parse(fs.readFileSync(path.join(root, FOLLOWED_FILE), 'utf8')) as { branch?: unknown } | null;
    return typeof data?.branch === 'string' && branchProblem(data.branch) === null ? data.branch : null;
  } catch (err) {
    if (isMissingFile(err) || err instanceof SyntaxError) return null;
    throw err;
  }
}

function writeWhole(dir: string, name: string, data: unknown): void {
  makePrivateDir(dir);
  const file = path.join(dir, name);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(data)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/**
 * Every branch folder under `root` with its record (null: missing, damaged, or not the folder its
 * branch's name gives), for the server to take up again or remove.
 */
export function listBranchFolders(root: string): { dir: string; record: BranchRecord | null }[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch (err) {
    if (isMissingFile(err)) return [];
    throw err;
  }
  return names
    .filter((name) => FOLDER.test(name))
    .map((name) => {
      const dir = path.join(root, name);
      const record = readBranchRecord(dir);
      return { dir, record: record && branchPaths(root, record.branch).dir === dir ? record : null };
    });
}

/** The record of `branch` when it is previewed (its folder holds its record), else null. */
export function findBranch(root: string, branch: string): { paths: BranchPaths; record: BranchRecord } | null {
  if (branchProblem(branch) !== null) return null;
  const paths = branchPaths(root, branch);
  const record = readBranchRecord(paths.dir);
  return record?.branch === branch ? { paths, record } : null;
}
