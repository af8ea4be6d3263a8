// What `start --follow` may be pointed at, checked before git ever sees it: a URL or path that
// git could read as an option or as a command to run is refused, and so is a branch name that
// is not a plain branch (`--upload-pack=…`, `..`, `@{`). Credentials in an https URL are taken
// out of it: git gets them through the environment (credentials.ts), never on its command line,
// and what Quire prints shows the URL without them.
import path from 'node:path';
import { ProblemError } from '../problems/problem.ts';

/** `--follow` or `--branch` refused (a usage error: `quire start` exits 2). */
export class FollowSourceError extends ProblemError<'COMMAND_LINE_INVALID'> {
  constructor(message: string) {
    super('COMMAND_LINE_INVALID', message);
    this.name = 'FollowSourceError';
  }
}

export interface FollowSource {
  /** What git fetches from: a URL without credentials, or a local path made absolute. Safe to print. */
  url: string;
  /** The branch given (--branch); null: the remote's default branch, asked of it (remote-branches.ts). */
  branch: string | null;
  /** The user name and password an http(s) URL carried, for git's credential helper; null: none. */
  credentials: FollowCredentials | null;
  /** A path or file:// URL: the one case where git's file transport is allowed. */
  local: boolean;
}

export interface FollowCredentials {
  /** The host (and port) they are for: git is given them for no other. */
  host: string;
  username: string;
  password: string;
}

const URL_SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git']);

export function parseFollowSource(rawUrl: string, branch: string | null, cwd: string): FollowSource {
  const checked = checkRepositoryUrl(rawUrl, cwd);
  const { url, credentials } = splitCredentials(checked);
  return { url, branch: branch === null ? null : checkBranchName(branch), credentials, local: isLocal(checked) };
}

const isLocal = (url: string): boolean => path.isAbsolute(url) || /^file:\/\//i.test(url);

/** An http(s) URL's user info taken out (percent-decoded, as git would send it); other URLs as they are. */
function splitCredentials(url: string): { url: string; credentials: FollowCredentials | null } {
  if (!/^https?:\/\//i.test(url)) return { url, credentials: null };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FollowSourceError(`the repository URL is not a URL: ${redactUrl(url)}`);
  }
  if (!parsed.username && !parsed.password) return { url, credentials: null };
  const credentials = {
    host: parsed.host,
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, credentials };
}

/** The source's URL as it may be printed: `***@` where credentials were taken out. */
export function displayUrl(source: FollowSource): string {
  return source.credentials ? source.url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)/, '$1***@') : redactUrl(source.url);
}

/** A URL as it may be printed: any user info (a token is often the user name) replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/]*@/, '$1***@');
}

export function checkRepositoryUrl(raw: string, cwd: string): string {
  if (!raw) throw new FollowSourceError('--follow needs a git URL or a path to a repository');
  if (/[\u0000-\u001f\u007f]/.test(raw))
    throw new FollowSourceError('the repository URL must not contain control characters');
  if (raw.startsWith('-')) throw new FollowSourceError(`the repository URL must not start with "-": ${raw}`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1];
  if (scheme !== undefined) {
    if (!URL_SCHEMES.has(scheme.toLowerCase()))
      throw new FollowSourceError(
        `unsupported repository URL scheme "${scheme}" (use https, ssh, git, file or a path)`,
      );
    return raw;
  }
  // `<transport>::<address>` makes git run a remote helper (`ext::` runs any command).
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw))
    throw new FollowSourceError(
      `remote helpers ("${raw.split('::')[0]}::") are not allowed; use https, ssh, git, file or a path`,
    );
  // scp-like `[user@]host:path` (a colon before any slash) is ssh, as git reads it.
  if (/^[^/]*:/.test(raw) && !/^[A-Za-z]:[\\/]/.test(raw)) return raw;
  return path.resolve(cwd, raw);
}

export function checkBranchName(branch: string): string {
  const problem = branchProblem(branch);
  if (problem) throw new FollowSourceError(`--branch ${JSON.stringify(branch)}: ${problem}`);
  return branch;
}

/** What is wrong with a branch name, or null: a subset of git's ref-name rules, stricter: letters, digits, `.`, `_`, `-` and `/` only. */
export function branchProblem(b: string): string | null {
  if (!b) return 'must not be empty';
  if (b.length > 200) return 'is too long';
  if (b.startsWith('-')) return 'must not start with "-"';
  if (!/^[A-Za-z0-9._/-]+$/.test(b)) return 'may hold only letters, digits, ".", "_", "-" and "/"';
  if (b.includes('..') || b.includes('//')) return 'must not contain ".." or "//"';
  if (/(^|\/)\./.test(b) || /[/.]$/.test(b) || b.startsWith('/') || b.endsWith('.lock'))
    return 'is not a valid branch name';
  return null;
}
