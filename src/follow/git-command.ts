// Every git call the follower makes: no shell, a time-out, no prompt for credentials, and the
// `ext::` transport (which runs a command named in the URL) refused whatever the git config says.
import { execFile } from 'node:child_process';

/** A git call that failed, timed out or could not start; the message names the call and git's words. */
export class GitCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitCommandError';
  }
}

export const GIT_TIMEOUT_MS = 120_000;

const SAFE_ENV = {
  GIT_TERMINAL_PROMPT: '0',
  // No pager and no editor, in case some command would wait for one.
  GIT_PAGER: 'cat',
  GIT_EDITOR: 'true',
};

/**
 * Runs `git -c protocol.ext.allow=never <args>` in `cwd` and resolves with its stdout.
 * Callers put every value that comes from outside (URL, branch, path) after a `--`.
 */
export function runGit(cwd: string, args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const timeout = opts.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'protocol.ext.allow=never', ...args],
      { cwd, env: { ...process.env, ...SAFE_ENV }, timeout, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const what = `git ${args.find((a) => !a.startsWith('-')) ?? ''}`.trim();
        const killed = error.killed || error.signal === 'SIGKILL';
        const said = lastLines(stderr || error.message);
        reject(new GitCommandError(killed ? `${what} timed out after ${Math.round(timeout / 1000)} s` : `${what} failed: ${said}`));
      },
    );
  });
}

/** git's last words, on one line (enough to say why, without a wall of progress output). */
function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 500);
}
