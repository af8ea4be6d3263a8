// Article dates from git, read in one pass over the whole tree (never a `git log` per file).
// publishedAt: the first mainline commit whose version of the file was published;
// updatedAt: the last commit that changed it. Uncommitted work falls back to the file's mtime.
import path from 'node:path';
import { runGit, spawnGit } from './git-runner.ts';
import type { GitRepository } from './repository.ts';
import { toIsoUtc } from '../content/dates.ts';
import { splitFrontMatter } from '../content/front-matter.ts';
import { CONTENT_LIMITS } from '../content/limits.ts';
import { decodeUtf8 } from '../content/parse-article.ts';
import { parseYamlMapping } from '../content/yaml-fields.ts';

export interface FileDates {
  publishedAt: string | null;
  updatedAt: string | null;
}

export interface DateQuery {
  /** Absolute path. */
  file: string;
  mtimeMs: number;
  /** Whether publishedAt is wanted (the article is published and has no date in front matter). */
  wantPublishedAt: boolean;
}

export interface Change {
  time: number;
  blob: string;
}

/** History read at one HEAD, reused while HEAD stays there; whether each blob was published. */
export interface GitHistoryCache {
  head: string | null;
  changes: Map<string, Change[]>;
  published: Map<string, boolean>;
}

/**
 * Dates of the articles in `queries`, from `repository` (the one src/git/repository.ts located
 * for the content folder `dir`), or from the files' mtimes outside a repository.
 */
export async function readGitDates(
  repository: GitRepository | null,
  dir: string,
  queries: DateQuery[],
  cache: GitHistoryCache = { head: null, changes: new Map(), published: new Map() },
): Promise<Map<string, FileDates>> {
  const out = new Map<string, FileDates>();
  const mtimeDate = (q: DateQuery) => toIsoUtc(new Date(Math.floor(q.mtimeMs / 1000) * 1000));
  if (!repository) {
    for (const q of queries) out.set(q.file, { publishedAt: mtimeDate(q), updatedAt: mtimeDate(q) });
    return out;
  }
  const root = repository.workTree;
  const rel = path.relative(root, path.resolve(dir)) || '.';
  const head = await headOf(repository);
  const [dirty, history] = await Promise.all([
    dirtyFiles(repository, rel),
    head === null ? new Map<string, Change[]>() : head === cache.head ? cache.changes : changesByFile(repository, rel),
  ]);
  if (head !== cache.head) {
    cache.head = head;
    cache.changes = history;
  }
  const blobs = new BlobReader(repository, cache.published);
  try {
    for (const q of queries) {
      const changes = history.get(q.file) ?? [];
      const isDirty = dirty.has(q.file) || changes.length === 0;
      const updatedAt = isDirty ? mtimeDate(q) : toIsoUtc(new Date(changes[0]!.time * 1000));
      let publishedAt: string | null = null;
      if (q.wantPublishedAt) {
        // Oldest first: the first committed version that was published.
        for (let i = changes.length - 1; i >= 0 && publishedAt === null; i--) {
          const c = changes[i]!;
          const onlyVersion = changes.length === 1 && !isDirty;
          if (onlyVersion || (await blobs.isPublished(c.blob))) publishedAt = toIsoUtc(new Date(c.time * 1000));
        }
        publishedAt ??= mtimeDate(q);
      }
      out.set(q.file, { publishedAt, updatedAt });
    }
  } finally {
    blobs.close();
  }
  return out;
}

async function headOf(repository: GitRepository): Promise<string | null> {
  try {
    const stdout = await runGit(repository, ['rev-parse', '--verify', '-q', 'HEAD']);
    return `${repository.workTree}:${stdout.trim()}`;
  } catch {
    return null; // no commits yet
  }
}

async function dirtyFiles(repository: GitRepository, rel: string): Promise<Set<string>> {
  const stdout = await runGit(
    repository,
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all', '--', rel],
    { maxBufferBytes: 256 * 1024 * 1024 },
  );
  const dirty = new Set<string>();
  for (const entry of stdout.split('\0')) {
    if (entry.length > 3) dirty.add(path.join(repository.workTree, entry.slice(3)));
  }
  return dirty;
}

/** Every change per current file path, newest first, following renames along the mainline. */
async function changesByFile(repository: GitRepository, rel: string): Promise<Map<string, Change[]>> {
  // Only called once HEAD exists: a failure here is a real one (not "no commits yet"), and
  // dating every article by mtime instead would change published dates without a word.
  const root = repository.workTree;
  const stdout = await runGit(
    repository,
    [
      'log',
      '--format=%x1e%H %ct',
      '-M',
      '--raw',
      '-z',
      '--no-abbrev',
      '--first-parent',
      '--diff-merges=first-parent',
      '--',
      rel,
    ],
    { maxBufferBytes: 1024 * 1024 * 1024 },
  );
  const byPath = new Map<string, Change[]>();
  const alias = new Map<string, string>(); // older path → path it has now
  const born = new Set<string>(); // current paths whose creation was seen: older entries are another file
  for (const record of stdout.split('\x1e')) {
    if (!record) continue;
    const headerEnd = record.indexOf('\0');
    const time = Number(record.slice(0, headerEnd).split(' ')[1]);
    const tokens = record
      .slice(headerEnd + 1)
      .replace(/^\n/, '')
      .split('\0');
    for (let i = 0; i < tokens.length; i++) {
      const meta = tokens[i]!;
      if (!meta.startsWith(':')) continue;
      const fields = meta.split(' ');
      const status = fields[4] ?? '';
      const blob = fields[3] ?? '';
      const first = path.join(root, tokens[++i] ?? '');
      const second = status.startsWith('R') || status.startsWith('C') ? path.join(root, tokens[++i] ?? '') : null;
      const atCommit = second ?? first;
      const current = alias.get(atCommit) ?? atCommit;
      if (born.has(current) || status === 'D') continue;
      let list = byPath.get(current);
      if (!list) byPath.set(current, (list = []));
      list.push({ time, blob });
      if (status === 'A' || status.startsWith('C')) born.add(current);
      if (second && status.startsWith('R')) alias.set(first, current);
    }
  }
  return byPath;
}

/**
 * Whether an old version of an article said `status: published`. It is read like a current file
 * (YAML only, the same limits); a version that is too large or does not read was not published.
 */
function wasPublished(blob: string, bytes: Buffer): boolean {
  const text = decodeUtf8(bytes);
  if (text === null) return false;
  const split = splitFrontMatter(blob, text);
  if (!split.ok) return false;
  const yaml = parseYamlMapping(split.yaml, blob);
  return yaml.ok && yaml.fields.get('status')?.value === 'published';
}

/** Reads blobs through one long-lived `git cat-file --batch`. */
class BlobReader {
  private proc: ReturnType<typeof spawnGit> | null = null;
  private buffer = Buffer.alloc(0);
  /** Bytes of a blob too large to read that are still to come and be dropped. */
  private skip = 0;
  private waiting: ((b: Buffer | null) => void) | null = null;
  private readonly repository: GitRepository;
  private readonly known: Map<string, boolean>;

  constructor(repository: GitRepository, known: Map<string, boolean>) {
    this.repository = repository;
    this.known = known;
  }

  async isPublished(blob: string): Promise<boolean> {
    const cached = this.known.get(blob);
    if (cached !== undefined) return cached;
    const bytes = await this.read(blob); // null when missing or larger than an article may be
    const published = bytes !== null && wasPublished(blob, bytes);
    this.known.set(blob, published);
    return published;
  }

  private read(blob: string): Promise<Buffer | null> {
    if (!this.proc) {
      this.proc = spawnGit(this.repository, ['cat-file', '--batch']);
      this.proc.stderr!.resume(); // not read: a blob that is missing is said on stdout
      this.proc.stdout!.on('data', (chunk: Buffer) => {
        if (this.skip > 0) {
          const dropped = Math.min(this.skip, chunk.length);
          this.skip -= dropped;
          chunk = chunk.subarray(dropped);
        }
        if (chunk.length === 0) return;
        this.buffer = Buffer.concat([this.buffer, chunk]);
        this.drain();
      });
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.proc!.stdin!.write(`${blob}\n`);
    });
  }

  private drain(): void {
    const nl = this.buffer.indexOf(10);
    if (nl === -1 || !this.waiting) return;
    const header = this.buffer.subarray(0, nl).toString();
    if (header.endsWith(' missing')) {
      this.buffer = this.buffer.subarray(nl + 1);
      this.finish(null);
      return;
    }
    const size = Number(header.split(' ')[2]);
    if (size > CONTENT_LIMITS.articleBytes) {
      // Too large to be a version of an article: its bytes are dropped as they come, never held.
      const rest = size + 1;
      const have = this.buffer.length - (nl + 1);
      this.skip = Math.max(0, rest - have);
      this.buffer = this.buffer.subarray(nl + 1 + Math.min(rest, have));
      this.finish(null);
      return;
    }
    if (this.buffer.length < nl + 1 + size + 1) return;
    const body = this.buffer.subarray(nl + 1, nl + 1 + size);
    this.buffer = this.buffer.subarray(nl + 1 + size + 1);
    this.finish(Buffer.from(body));
  }

  private finish(value: Buffer | null): void {
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.(value);
  }

  close(): void {
    this.proc?.stdin?.end();
    this.proc = null;
  }
}
