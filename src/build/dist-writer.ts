// Writes a new dist/ into a temporary sibling folder as the build goes, then swaps it in with
// renames: a reader sees the old tree or the new one, and a failed build leaves the old one
// untouched. Files that did not change are hard links to the current dist/'s.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, type Manifest } from './manifest.ts';
import { startTreeHelper, type TreeHelper } from './tree-helper.ts';

export class DistWriter {
  readonly distDir: string;
  private readonly tmp: string;
  private readonly old: string;
  private readonly dirs = new Set<string>();
  /** Every file the new tree must hold: written, copied or taken over. */
  private readonly expected = new Set<string>();
  private readonly reused: string[] = [];
  private readonly helper: TreeHelper | null;
  /** The current dist/ being linked into the new tree on the helper thread, when there is one. */
  private readonly linking: Promise<string[]> | null;
  private writes = 0;
  private done = false;

  /** `helper`: from startBuildHelper, for rebuilds; without it every file is written. */
  constructor(distDir: string, helper: TreeHelper | null = null) {
    this.distDir = distDir;
    const parent = path.dirname(distDir);
    const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.tmp = path.join(parent, `.${path.basename(distDir)}.tmp-${tag}`);
    this.old = path.join(parent, `.${path.basename(distDir)}.old-${tag}`);
    fs.mkdirSync(this.tmp, { recursive: true });
    this.helper = helper;
    // Most of a rebuild's output is the previous output: link all of it now, while the build
    // works out what changed; what the build writes replaces its link, the rest is dropped at commit.
    this.linking = helper && fs.existsSync(path.join(distDir, MANIFEST_FILE)) ? helper.linkTree(distDir, this.tmp) : null;
    this.linking?.catch(() => {}); // awaited at commit or abort
  }

  private target(rel: string): string {
    this.expected.add(rel);
    const file = path.join(this.tmp, rel);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    return file;
  }

  write(rel: string, data: string | Uint8Array): void {
    this.place(rel, (file) => fs.writeFileSync(file, data));
  }

  /** Takes `rel` over from the current dist/ unchanged. */
  reuse(rel: string): void {
    this.expected.add(rel);
    this.reused.push(rel);
  }

  copy(rel: string, source: string): void {
    this.place(rel, (file) => fs.copyFileSync(source, file));
  }

  private place(rel: string, make: (file: string) => void): void {
    const file = this.target(rel);
    if (!this.linking) return make(file);
    // The helper may have linked the old file here: writing into it would change the old
    // tree's file too. A new file renamed over the link leaves the old one alone.
    const part = `${file}.${this.writes++}.part`;
    make(part);
    fs.renameSync(part, file);
  }

  /** Completes the tree, writes the manifest last (its presence marks a complete tree) and swaps it in. */
  async commit(manifest: Manifest): Promise<void> {
    if (this.linking) this.completeLinkedTree(await this.linking);
    else if (this.reused.length) throw new Error('dist/ has no previous build to take unchanged files from');
    fs.writeFileSync(path.join(this.tmp, MANIFEST_FILE), JSON.stringify(manifest) + '\n');
    let hadOld = false;
    try {
      fs.renameSync(this.distDir, this.old);
      hadOld = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      fs.renameSync(this.tmp, this.distDir);
    } catch (err) {
      if (hadOld) fs.renameSync(this.old, this.distDir);
      throw err;
    }
    this.done = true;
    if (!hadOld) return;
    // Nothing refers to the replaced tree any more: the helper deletes it without holding up
    // the build or the process's exit (the next build sweeps what is left).
    if (!this.helper) return fs.rmSync(this.old, { recursive: true, force: true }); // a dist/ without a manifest: rare
    this.helper.remove([this.old], false).catch((err: Error) => {
      process.emitWarning(`could not delete the replaced build at ${this.old}: ${err.message}`);
    });
  }

  /** Drops what the new tree must not hold: files of the old one that this build did not produce. */
  private completeLinkedTree(linked: string[]): void {
    const have = new Set(linked);
    const missing = this.reused.filter((rel) => !have.has(rel) && !fs.existsSync(path.join(this.tmp, rel)));
    if (missing.length) throw new Error(`dist/ changed during the build: ${missing.length} unchanged files are gone (first: ${missing[0]})`);
    const emptied = new Set<string>();
    for (const rel of linked) {
      if (this.expected.has(rel)) continue;
      fs.unlinkSync(path.join(this.tmp, rel));
      emptied.add(path.dirname(rel));
    }
    for (const dir of [...emptied].sort().reverse()) removeEmptyDirs(this.tmp, dir);
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.helper?.terminate(); // stops linking into the tree removed next
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** Removes `rel` and its parents under `root` while they are empty. */
function removeEmptyDirs(root: string, rel: string): void {
  for (let dir = rel; dir && dir !== '.'; dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(path.join(root, dir));
    } catch {
      return; // not empty (or gone): its parents are not empty either
    }
  }
}

/**
 * The helper thread of a build that writes dist/, started as early as possible: it deletes the
 * trees earlier builds left beside dist/ while this one loads content, then links the current
 * dist/ into the new tree (DistWriter). Null when there is nothing for it to do.
 */
export function startBuildHelper(distDir: string): TreeHelper | null {
  const leftovers = findLeftovers(distDir);
  if (!leftovers.length && !fs.existsSync(path.join(distDir, MANIFEST_FILE))) return null;
  const helper = startTreeHelper();
  helper.remove(leftovers, true).catch((err: Error) => process.emitWarning(`could not delete leftover builds: ${err.message}`));
  return helper;
}

/** Temporary trees a killed or finished build left beside dist/ (not those of a build running now). */
function findLeftovers(distDir: string): string[] {
  const parent = path.dirname(distDir);
  const prefix = `.${path.basename(distDir)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const m = name.startsWith(prefix) ? /^(?:tmp|old)-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length)) : null;
      return m !== null && !isRunning(Number(m[1]));
    })
    .map((name) => path.join(parent, name));
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
