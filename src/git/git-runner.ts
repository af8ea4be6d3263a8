// Every git call Quire makes goes through here. A content tree is input from anyone who can push
// or open a pull request, and git reads instructions from the repository it works in: so git is
// never left to discover a repository (it is told the git dir and work tree Quire found itself,
// see repository.ts), nothing in any config may run a program (the settings below), and nothing
// in the caller's environment may redirect it. No shell, a time-out, no prompts.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ProblemError } from '../problems/problem.ts';

/** A git call that failed, timed out or could not start; the message names the call and git's words. */
export class GitCommandError extends ProblemError<'GIT_COMMAND_FAILED'> {
  /** The call was stopped by its time-out (git said nothing of why). */
  readonly timedOut: boolean;
  constructor(message: string, opts: { timedOut?: boolean } = {}) {
    super('GIT_COMMAND_FAILED', message);
    this.name = 'GitCommandError';
    this.timedOut = opts.timedOut ?? false;
  }
}

export const GIT_TIMEOUT_MS = 120_000;

/** Where a call runs: a repository Quire located (never one git discovers), or none at all. */
export type GitTarget =
  | { kind: 'repository'; gitDir: string; workTree: string }
  /** A call that needs no repository (`ls-remote`, `init`): run in `dir`, and git looks nowhere above it. */
  | { kind: 'none'; dir: string };

export interface GitCallOptions {
  timeoutMs?: number;
  /** `protocol.file.allow=always`: only for the follower's fetch of a repository given as a path. */
  allowFileProtocol?: boolean;
  /** Stops the call (the process is killed); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Configuration handed to git through the environment (never the command line, which `ps` shows). */
  env?: Readonly<Record<string, string>>;
  maxBufferBytes?: number;
}

/**
 * Settings that close every way git runs a program named in configuration or in the repository
 * (git-config(1): core.fsmonitor, core.hooksPath, safe.bareRepository, protocol.<name>.allow,
 * submodule.recurse, log.showSignature; an external diff and textconv drivers, which config
 * cannot switch off for every driver name, are refused on each command that diffs, see
 * withoutDiffPrograms). Given with -c, they win over every config file.
 */
const HARDENED_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'safe.bareRepository=explicit',
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'diff.ignoreSubmodules=all',
  'status.submoduleSummary=false',
  'log.showSignature=false',
];

/** Commands that can show a diff, and so run `diff.external` or a textconv driver unless told not to. */
const DIFF_COMMANDS = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch']);

/**
 * Variables of the caller's environment git may keep: how to reach and trust a remote, which
 * config files are the user's, and tracing. Every other GIT_* variable is dropped: GIT_DIR,
 * GIT_WORK_TREE, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS and the like would
 * point git at another repository or make it run something.
 */
const KEPT_GIT_VARIABLES =
  /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|ASKPASS|SSL_NO_VERIFY|SSL_CAINFO|SSL_CAPATH|HTTP_USER_AGENT|HTTP_LOW_SPEED_LIMIT|HTTP_LOW_SPEED_TIME|PROXY_SSL_CAINFO|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_NOSYSTEM|TRACE\w*)$/;

function gitEnvironment(target: GitTarget, opts: GitCallOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_') || KEPT_GIT_VARIABLES.test(name)) env[name] = value;
  }
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'true',
    // Paths given after `--` are names, never patterns (`:(…)` magic, `*`).
    GIT_LITERAL_PATHSPECS: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    // Reading calls leave the repository as it is (no index refresh behind the user's back).
    GIT_OPTIONAL_LOCKS: '0',
  });
  if (target.kind === 'repository') {
    Object.assign(env, {
      GIT_DIR: target.gitDir,
      GIT_WORK_TREE: target.workTree,
      GIT_CEILING_DIRECTORIES: path.dirname(target.workTree),
    });
  } else {
    // Discovery could only look at `dir` itself, a folder Quire made; never above it.
    env.GIT_CEILING_DIRECTORIES = path.dirname(target.dir);
  }
  if (opts.env) Object.assign(env, opts.env);
  return env;
}

function gitArguments(args: readonly string[], opts: GitCallOptions): string[] {
  const config = [...HARDENED_CONFIG, `protocol.file.allow=${opts.allowFileProtocol ? 'always' : 'never'}`];
  return [...config.flatMap((c) => ['-c', c]), ...withoutDiffPrograms(args)];
}

/** `args` with --no-ext-diff and --no-textconv right after the command, when it is one that diffs. */
function withoutDiffPrograms(args: readonly string[]): readonly string[] {
  let i = 0;
  while (args[i] === '-c') i += 2; // the caller's own `-c name=value` before the command
  if (!DIFF_COMMANDS.has(args[i] ?? '')) return args;
  return [...args.slice(0, i + 1), '--no-ext-diff', '--no-textconv', ...args.slice(i + 1)];
}

const cwdOf = (target: GitTarget): string => (target.kind === 'repository' ? target.workTree : target.dir);

/** `git <args>` for `target`, resolving with its stdout. Callers put every value from outside (URL, branch, path) after a `--`. */
export function runGit(target: GitTarget, args: readonly string[], opts: GitCallOptions = {}): Promise<string> {
  const timeout = opts.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      gitArguments(args, opts),
      {
        cwd: cwdOf(target),
        env: gitEnvironment(target, opts),
        timeout,
        killSignal: 'SIGKILL',
        maxBuffer: opts.maxBufferBytes ?? 16 * 1024 * 1024,
        encoding: 'utf8',
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if (opts.signal?.aborted) return reject(opts.signal.reason);
        const what = describeCall(args);
        const killed = error.killed || error.signal === 'SIGKILL';
        const said = lastLines(stderr || error.message);
        reject(
          new GitCommandError(
            killed ? `${what} timed out after ${Math.round(timeout / 1000)} s` : `${what} failed: ${said}`,
            { timedOut: killed },
          ),
        );
      },
    );
  });
}

/**
 * A long-lived git process (`cat-file --batch`) or one whose output is read as it comes: the
 * same target, settings and environment as runGit. The caller reads its stdout and ends it.
 */
export function spawnGit(target: GitTarget, args: readonly string[], opts: GitCallOptions = {}): ChildProcess {
  return spawn('git', gitArguments(args, opts), {
    cwd: cwdOf(target),
    env: gitEnvironment(target, opts),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** `git fetch`, `git ls-tree`…: the first word that is not an option. */
export const describeCall = (args: readonly string[]): string =>
  `git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''}`.trim();

/** git's last words, on one line (enough to say why, without a wall of progress output). */
export function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 500);
}
