// Whether a process recorded by pid (a lock or lease holder, a server, a build) still runs, and
// when it started, so that a pid the system handed to another process can be told apart. A
// signal 0 says only that the pid exists: a zombie (exited, its parent has not reaped it) exists
// but runs nothing and releases nothing, so on Linux its state in /proc decides. Elsewhere there
// is no /proc: the signal alone answers, and no start time is known.
import fs from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses), or null. */
function statFields(pid: number): string[] | null {
  if (process.platform !== 'linux') return null;
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = text.lastIndexOf(')');
  return close < 0 ? null : text.slice(close + 2).split(' ');
}

/** True while `pid` is a process that runs: not gone, and (on Linux) not a zombie. */
export function isProcessRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  let signalled: boolean;
  try {
    process.kill(pid, 0);
    signalled = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
    signalled = false; // there, but another user's
  }
  if (process.platform !== 'linux') return true;
  const state = statFields(pid)?.[0];
  // Not readable: gone between the signal and the read, unless /proc is not mounted, or the
  // process is another user's and hidden from this one (hidepid): then the signal answers.
  if (state === undefined) return !signalled || !fs.existsSync('/proc/self/stat') || fs.existsSync(`/proc/${pid}`);
  return state !== 'Z' && state !== 'X';
}

/**
 * When `pid` started, as the kernel counts it (Linux: clock ticks since boot, field 22 of
 * /proc/<pid>/stat); null where that is not known (another system, a process not visible).
 */
export function processStartTime(pid: number): number | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  const ticks = Number(statFields(pid)?.[19]);
  return Number.isSafeInteger(ticks) ? ticks : null;
}
