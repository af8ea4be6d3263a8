// Writes a new dist/ into a temporary sibling folder as the build goes, then swaps it in with
// renames: a reader sees the old tree or the new one, and a failed build leaves the old one
// untouched. Files that did not change are hard-linked from the current dist/.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, type Manifest } from './manifest.ts';

export class DistWriter {
  readonly distDir: string;
  private readonly tmp: string;
  private readonly old: string;
  private readonly dirs = new Set<string>();
  private done = false;

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

  /** Takes `rel` over from the current dist/ unchanged. */
  reuse(rel: string): void {
    const from = path.join(this.distDir, rel);
    const to = this.target(rel);
    try {
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
    }
  }

  copy(rel: string, source: string): void {
    fs.copyFileSync(source, this.target(rel));
  }

  /** Writes the manifest last (its presence marks a complete tree) and swaps the tree in. */
  commit(manifest: Manifest): void {
    fs.writeFileSync(path.join(this.tmp, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
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
    if (hadOld) fs.rmSync(this.old, { recursive: true, force: true });
  }

  abort(): void {
    if (!this.done) fs.rmSync(this.tmp, { recursive: true, force: true });
    this.done = true;
  }
}
