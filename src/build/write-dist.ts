// Writes a complete dist/ into a temporary sibling folder, then swaps it in with renames, so a
// reader sees the old tree or the new one, and a failed build leaves the old one untouched.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, type Manifest } from './manifest.ts';

export interface DistFile {
  /** Path relative to dist/, forward slashes. */
  path: string;
  data: string | Uint8Array;
}

export interface DistCopy {
  path: string;
  source: string;
}

export function writeDistAtomically(distDir: string, files: DistFile[], copies: DistCopy[], manifest: Manifest): void {
  const parent = path.dirname(distDir);
  const base = path.basename(distDir);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmp = path.join(parent, `.${base}.tmp-${tag}`);
  const old = path.join(parent, `.${base}.old-${tag}`);
  fs.mkdirSync(tmp, { recursive: true });
  try {
    const dirs = new Set<string>();
    const ensureDir = (rel: string) => {
      const d = path.dirname(path.join(tmp, rel));
      if (!dirs.has(d)) {
        fs.mkdirSync(d, { recursive: true });
        dirs.add(d);
      }
    };
    for (const f of files) {
      ensureDir(f.path);
      fs.writeFileSync(path.join(tmp, f.path), f.data);
    }
    for (const c of copies) {
      ensureDir(c.path);
      fs.copyFileSync(c.source, path.join(tmp, c.path));
    }
    // The manifest goes last: its presence marks a complete tree.
    fs.writeFileSync(path.join(tmp, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    let hadOld = false;
    try {
      fs.renameSync(distDir, old);
      hadOld = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      fs.renameSync(tmp, distDir);
    } catch (err) {
      if (hadOld) fs.renameSync(old, distDir);
      throw err;
    }
    if (hadOld) fs.rmSync(old, { recursive: true, force: true });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
