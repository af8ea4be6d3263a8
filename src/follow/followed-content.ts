// Which content tree a process reads, and how its problems name files. A server that follows a
// repository builds its checkout in the state dir, and the folder it runs in need hold no content
// of its own: so a command run there (`quire keys`, `webhook set`, `publish`) with no content/ and
// no QUIRE_CONTENT_DIR takes that checkout's content/, the sites the server serves. Problems in a
// followed checkout name files as they are in the repository (`content/site/articles/x.md`), not
// as the state dir holds them.
import fs from 'node:fs';
import path from 'node:path';
import type { QuireConfig } from '../config/config.ts';
import { isMissingFile } from '../problems/problem.ts';
import { followCheckoutDir } from '../config/state-layout.ts';

export interface ContentLocation {
  /** The content tree. */
  dir: string;
  /** The followed checkout it was taken from, when there was no other (its repository root); null otherwise. */
  followedCheckout: string | null;
}

/**
 * QUIRE_CONTENT_DIR when set; else content/ in the working directory when it is there (or cannot
 * be looked at: that is reported where it is read); else, when the state dir holds a followed
 * checkout, its content/; else content/ (missing, which the command reports).
 */
export function locateContent(config: Pick<QuireConfig, 'contentDir' | 'contentDirSet' | 'stateDir'>): ContentLocation {
  const configured = { dir: config.contentDir, followedCheckout: null };
  if (config.contentDirSet || !missing(config.contentDir)) return configured;
  const checkout = followCheckoutDir(config.stateDir);
  if (missing(path.join(checkout, '.git'))) return configured;
  return { dir: path.join(checkout, 'content'), followedCheckout: checkout };
}

function missing(file: string): boolean {
  try {
    fs.lstatSync(file);
    return false;
  } catch (err) {
    return isMissingFile(err);
  }
}

/**
 * The folder problem paths are shown from: the followed checkout's root for content in it (paths
 * read as in the repository), the working directory for any other.
 */
export function problemPathsFrom(settings: { contentDir: string; stateDir: string }): string {
  const checkout = followCheckoutDir(settings.stateDir);
  const inside = path.relative(checkout, path.resolve(settings.contentDir));
  const outside = inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside);
  return outside ? process.cwd() : checkout;
}
