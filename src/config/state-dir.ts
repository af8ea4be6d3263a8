// The state dir (.quire/) holds the server secret, sealed webhook secrets and drafts: the render
// cache keeps every article's rendered body, the followed checkout every draft's source. Only its
// user may enter it, whatever the umask: Quire makes it, and each folder in it, 0700. One found
// open to others (made so by an earlier version under umask 022) is closed with chmod, not refused:
// it is Quire's own folder, and a refusal would stop every existing install at the upgrade over
// what one chmod fixes.
import fs from 'node:fs';

/** Makes `dir` (and missing parents) 0700; an existing one of this user is closed to group and others. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { mode, uid } = fs.statSync(dir);
  // Another user's folder is theirs to set (and chmod would fail): left as it is.
  if ((mode & 0o077) === 0 || uid !== process.getuid?.()) return;
  try {
    fs.chmodSync(dir, 0o700);
  } catch (err) {
    // A read-only mount (a state dir baked into an image) cannot change, nor take new files.
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
  }
}

/** The state dir, private to its user (made when missing). */
export function ensureStateDir(stateDir: string): void {
  makePrivateDir(stateDir);
}
