// `npm install /path/to/quire-0.1.0.tgz` records `file:../…` in the content repository's
// package.json and package-lock.json: a fresh clone (CI's `npm ci`) has no such file, and fails.
// `quire init` keeps the tarball in the repository instead: copied into vendor/, both files
// pointed at `file:vendor/<name>`. The same bytes, so the lock's integrity still holds; it needs
// no network and no credentials, where a git URL needs CI to reach and read Quire's repository.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isMissingFile } from '../problems/problem.ts';

export const VENDOR_DIR = 'vendor';

export type VendorOutcome =
  /** Nothing to do: no package.json, Quire not installed from a file, or from one in the repository. */
  | { kind: 'none' }
  | { kind: 'vendored'; from: string; to: string; spec: string }
  /** Quire is installed from a file outside the repository and it could not be brought in. */
  | { kind: 'not-clonable'; reason: string };

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
const TARBALL = /\.(tgz|tar\.gz|tar)$/;

interface JsonFile {
  file: string;
  data: Record<string, unknown>;
  indent: string;
  newline: boolean;
}

/** Brings the tarball `root`'s package.json installs Quire from into `root/vendor/` when it lies outside `root`. */
export function vendorQuireTarball(root: string): VendorOutcome {
  const pkg = readJson(path.join(root, 'package.json'));
  if (pkg === null) return { kind: 'none' };
  if (pkg instanceof Error) return { kind: 'not-clonable', reason: pkg.message };
  const field = DEPENDENCY_FIELDS.find((f) => typeof record(pkg.data[f])?.quire === 'string');
  const spec = field ? (record(pkg.data[field])!.quire as string) : null;
  if (!field || !spec?.startsWith('file:')) return { kind: 'none' };
  const source = path.resolve(root, spec.slice('file:'.length));
  if (isInside(root, source)) return { kind: 'none' };
  const shown = spec.slice('file:'.length);
  if (!TARBALL.test(source)) {
    return {
      kind: 'not-clonable',
      reason: `package.json installs quire from ${shown}, a folder outside this repository that a fresh clone does not have`,
    };
  }

  const lock = readJson(path.join(root, 'package-lock.json'));
  if (lock === null)
    return {
      kind: 'not-clonable',
      reason:
        'package.json installs quire from a tarball outside this repository, and there is no package-lock.json for `npm ci`',
    };
  if (lock instanceof Error) return { kind: 'not-clonable', reason: lock.message };
  const packages = record(lock.data.packages);
  const installed = record(packages?.['node_modules/quire']);
  const integrity = typeof installed?.integrity === 'string' ? installed.integrity : null;
  if (!installed || installed.resolved !== spec || !integrity) {
    return {
      kind: 'not-clonable',
      reason: `package-lock.json does not record quire as installed from ${shown} (run npm install first)`,
    };
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(source);
  } catch {
    return {
      kind: 'not-clonable',
      reason: `${shown}, the tarball package.json installs quire from, cannot be read (moved or deleted?)`,
    };
  }
  if (!matchesIntegrity(bytes, integrity)) {
    return {
      kind: 'not-clonable',
      reason: `${shown} is not the tarball that was installed (its hash differs from package-lock.json's integrity)`,
    };
  }

  const name = path.basename(source);
  const target = path.join(root, VENDOR_DIR, name);
  const existing = readIfFile(target);
  if (existing && !existing.equals(bytes))
    return { kind: 'not-clonable', reason: `${VENDOR_DIR}/${name} is there already, and is another file` };
  if (!existing) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes, { flag: 'wx' });
  }

  const vendored = `file:${VENDOR_DIR}/${name}`;
  record(pkg.data[field])!.quire = vendored;
  const rootEntry = record(record(packages?.[''])?.[field]);
  if (rootEntry?.quire === spec) rootEntry.quire = vendored;
  installed.resolved = vendored;
  // Lock files of version 2 also keep the older `dependencies` tree, which names the spec as the version.
  const legacy = record(record(lock.data.dependencies)?.quire);
  if (legacy?.version === spec) legacy.version = vendored;
  writeJson(pkg);
  writeJson(lock);
  return { kind: 'vendored', from: shown, to: `${VENDOR_DIR}/${name}`, spec: vendored };
}

/** Whether `bytes` hash to one of the integrity string's sha512 (or sha1, older npm) entries. */
function matchesIntegrity(bytes: Buffer, integrity: string): boolean {
  return integrity.split(/\s+/).some((entry) => {
    const m = /^(sha512|sha1)-(.+)$/.exec(entry);
    return m !== null && createHash(m[1]!).update(bytes).digest('base64') === m[2];
  });
}

function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function readIfFile(file: string): Buffer | null {
  try {
    return fs.statSync(file).isFile() ? fs.readFileSync(file) : null;
  } catch {
    return null;
  }
}

/** A JSON file with how npm wrote it (indent, final newline), null when it is not there. */
function readJson(file: string): JsonFile | null | Error {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (isMissingFile(e)) return null;
    return new Error(`${path.basename(file)} cannot be read`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return new Error(`${path.basename(file)} is not JSON`);
  }
  if (!record(data)) return new Error(`${path.basename(file)} is not a JSON object`);
  return {
    file,
    data: data as Record<string, unknown>,
    indent: /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? '  ',
    newline: text.endsWith('\n'),
  };
}

function writeJson({ file, data, indent, newline }: JsonFile): void {
  fs.writeFileSync(file, JSON.stringify(data, null, indent) + (newline ? '\n' : ''));
}
