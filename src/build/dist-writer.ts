// Writes a new dist/ into a temporary sibling folder as the build goes, then swaps it in with
// renames: a reader sees the old tree or the new one, and a failed build leaves the old one
// untouched. Files that did not change are hard-linked from the current dist/.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_FILE, type Manifest } from './manifest.ts';

export class DistWriter {
  readonly distDir: string;
  private readonly tmp: string;
  private readonly old: string;
  private readonly dirs = new Set<string>();
  private readonly reused: string[] = [];
  private done = false;
  /** Resolves once the replaced tree is deleted (after commit; not part of the swap). */
  cleanup: Promise<void> = Promise.resolve();

  constructor(distDir: string) {
    this.distDir = distDir;
    const parent = path.dirname(distDir);
    const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.tmp = path.join(parent, `.${path.basename(distDir)}.tmp-${tag}`);
    this.old = path.join(parent, `.${path.basename(distDir)}.old-${tag}`);
    fs.mkdirSync(this.tmp, { recursive: true });
  }

  private target(rel: string): string {
    const file = path.join(this.tmp, rel);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    return file;
  }

  write(rel: string, data: string | Uint8Array): void {
    fs.writeFileSync(this.target(rel), data);
  }

  /** Takes `rel` over from the current dist/ unchanged (linked at commit). */
  reuse(rel: string): void {
    this.target(rel);
    this.reused.push(rel);
  }

  // Synchronous on purpose: measured faster here than fs.promises.link, in parallel or overlapped.
  private linkReused(): void {
    for (const rel of this.reused) {
      const from = path.join(this.distDir, rel);
      const to = path.join(this.tmp, rel);
      try {
        fs.linkSync(from, to);
      } catch {
        fs.copyFileSync(from, to); // another file system, or links not allowed
      }
    }
  }

  copy(rel: string, source: string): void {
    fs.copyFileSync(source, this.target(rel));
  }

  /** Writes the manifest last (its presence marks a complete tree) and swaps the tree in. */
  commit(manifest: Manifest): void {
    this.linkReused();
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
    // Nothing refers to the replaced tree any more: delete it without holding up the build.
    if (hadOld) {
      this.cleanup = fsp.rm(this.old, { recursive: true, force: true }).catch((err: Error) => {
        process.emitWarning(`could not delete the replaced build at ${this.old}: ${err.message}`); // the next build sweeps it
      });
    }
  }

  abort(): void {
    if (!this.done) fs.rmSync(this.tmp, { recursive: true, force: true });
    this.done = true;
  }
}

/** Removes temporary trees a killed build left beside dist/ (not the ones of a build running now). */
export function sweepLeftovers(distDir: string): void {
  const parent = path.dirname(distDir);
  const prefix = `.${path.basename(distDir)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(?:tmp|old)-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length)) : null;
    if (!m || isRunning(Number(m[1]))) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
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
