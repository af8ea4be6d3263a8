// dist/ as a folder on the local disk: the files layout.ts names, read and written with node:fs.
// The build, `quire publish` and the local reader come here; nothing else joins a dist/ path.
import fs from 'node:fs';
import path from 'node:path';
import { hashBytes } from './content-hash.ts';
import { MANIFEST_FILE, articleFile, listFile } from './layout.ts';
import { splitListItems, type ListItems } from './list-body.ts';
import { manifestJson, parseManifest, type Manifest } from './manifest.ts';
import { fixFor, isMissingFile, ProblemError } from '../problems/problem.ts';

/** The file at `key` (a layout.ts path) in the tree at `root`. */
export const fileIn = (root: string, key: string): string => path.join(root, key);

/**
 * The manifest of the build in `distDir`; null when there is none (no build yet) or it is another
 * version's. One that is there but cannot be read or is not one is a ProblemError naming it.
 */
export function readManifest(distDir: string): Manifest | null {
  const file = fileIn(distDir, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return null;
    throw new ProblemError(
      'MANIFEST_UNREADABLE',
      `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): ${fixFor('MANIFEST_UNREADABLE')}`,
      { cause: err },
    );
  }
  return parseManifest(text, file);
}

/** Writes the manifest of the tree at `root` (a build writes it last: its presence marks a complete tree). */
export function writeManifest(root: string, manifest: Manifest): void {
  fs.writeFileSync(fileIn(root, MANIFEST_FILE), manifestJson(manifest));
}

/**
 * The items of a site's list in the tree at `distDir`; null when it has none (or none this build
 * can cut). With `expectedHash` (the manifest's listHash) it must be that list, else
 * PayloadChangedError: what is recorded must be what was planned.
 */
export function readListItems(distDir: string, siteId: string, expectedHash?: string): ListItems | null {
  const file = fileIn(distDir, listFile(siteId));
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    if (isMissingFile(err)) return null; // a site new to this build
    throw err;
  }
  if (expectedHash !== undefined && hashBytes(bytes) !== expectedHash) throw new PayloadChangedError(file);
  return splitListItems(bytes);
}

/**
 * The payload on disk is not the one the manifest describes: another build replaced it. Not a
 * problem of its own: only publish checks payloads against the manifest, and it reports this as
 * PUBLISH_INTERRUPTED, with what to do.
 */
export class PayloadChangedError extends Error {
  constructor(readonly file: string) {
    super(`${file} does not match its hash in the manifest`);
    this.name = 'PayloadChangedError';
  }
}

/**
 * A published article's API body (JSON text), which its webhook payload is made from
 * (webhookArticleJsonOf). With `expectedHash` (the manifest's bodyHash) it must be those bytes,
 * else PayloadChangedError: what is sent must be what was planned.
 */
export function readArticleBody(distDir: string, siteId: string, slug: string, expectedHash?: string): string {
  const file = fileIn(distDir, articleFile(siteId, slug));
  const bytes = fs.readFileSync(file);
  if (expectedHash !== undefined && hashBytes(bytes) !== expectedHash) throw new PayloadChangedError(file);
  return bytes.toString('utf8');
}
