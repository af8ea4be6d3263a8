// What `start --follow` may be pointed at, checked before git ever sees it: a URL or path that
// git could read as an option or as a command to run is refused, and so is a branch name that
// is not a plain branch (`--upload-pack=…`, `..`, `@{`).
import path from 'node:path';

export class FollowSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FollowSourceError';
  }
}

export interface FollowSource {
  /** What git fetches from: a URL as given, or a local path made absolute. */
  url: string;
  branch: string;
}

const URL_SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git']);

export function parseFollowSource(rawUrl: string, branch: string, cwd: string): FollowSource {
  return { url: checkRepositoryUrl(rawUrl, cwd), branch: checkBranchName(branch) };
}

export function checkRepositoryUrl(raw: string, cwd: string): string {
  if (!raw) throw new FollowSourceError('--follow needs a git URL or a path to a repository');
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new FollowSourceError('the repository URL must not contain control characters');
  if (raw.startsWith('-')) throw new FollowSourceError(`the repository URL must not start with "-": ${raw}`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1];
  if (scheme !== undefined) {
    if (!URL_SCHEMES.has(scheme.toLowerCase())) throw new FollowSourceError(`unsupported repository URL scheme "${scheme}" (use https, ssh, git, file or a path)`);
    return raw;
  }
  // `<transport>::<address>` makes git run a remote helper (`ext::` runs any command).
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) throw new FollowSourceError(`remote helpers ("${raw.split('::')[0]}::") are not allowed; use https, ssh, git, file or a path`);
  // scp-like `[user@]host:path` (a colon before any slash) is ssh, as git reads it.
  if (/^[^/]*:/.test(raw) && !/^[A-Za-z]:[\\/]/.test(raw)) return raw;
  return path.resolve(cwd, raw);
}

export function checkBranchName(branch: string): string {
  const problem = branchProblem(branch);
  if (problem) throw new FollowSourceError(`--branch ${JSON.stringify(branch)}: ${problem}`);
  return branch;
}

/** A subset of git's ref-name rules, stricter: letters, digits, `.`, `_`, `-` and `/` only. */
function branchProblem(b: string): string | null {
  if (!b) return 'must not be empty';
  if (b.length > 200) return 'is too long';
  if (b.startsWith('-')) return 'must not start with "-"';
  if (!/^[A-Za-z0-9._/-]+$/.test(b)) return 'may hold only letters, digits, ".", "_", "-" and "/"';
  if (b.includes('..') || b.includes('//')) return 'must not contain ".." or "//"';
  if (/(^|\/)\./.test(b) || /[/.]$/.test(b) || b.startsWith('/') || b.endsWith('.lock')) return 'is not a valid branch name';
  return null;
}
