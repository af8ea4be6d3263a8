// What a build learns and the next one reuses, kept in the state dir: each source file's stat,
// hash and parsed front matter; image hashes; git history at a HEAD; the render problems and the
// article links already found per source, so unchanged articles are not rendered again just to be
// checked; and the problems the last compile found, told again by a build that changes nothing.
//
// Every build as a new process loads and saves all of it, so its shape on disk is chosen for
// that: each source is one flat array, its front matter JSON text, which loads in a fraction of
// the time the objects took (docs/benchmarks-log.md, "figures first recorded in code comments"),
// and a save writes the JSON it loaded instead of serializing objects again.
import fs from 'node:fs';
import v8 from 'node:v8';
import { ensureStateDir, makePrivateDir } from '../config/state-dir.ts';
import { buildStateFileOf, cacheDirOf } from '../config/state-layout.ts';
import type { GitHistoryCache } from '../git/git-history.ts';
import type { ArticleLink } from '../content/article-links.ts';
import type { ContentIssue } from '../content/issues.ts';
import type { SourceCache, SourceEntry } from '../content/load-content.ts';
import type { RenderProblem } from '../render/render-context.ts';
import { fixFor, isMissingFile, ProblemError } from '../problems/problem.ts';
import { RENDERER_VERSION } from '../render/renderer-version.ts';
import type { ArticleKeyMemo, ArticleKeys } from './article-keys.ts';
import type { ImageHashCache } from './images.ts';

export interface BuildState {
  sources: SourceCache;
  /** The build keys last computed for each entry of `sources`. */
  keys: ArticleKeyMemo;
  imageHashes: ImageHashCache;
  git: GitHistoryCache;
  /** Render problems by check key (source, renderer, images): empty when the body was fine. */
  checked: Map<string, RenderProblem[]>;
  /** The links to articles in each body, by input key (it holds the site's url and articlePath): see linksOf. */
  links: StoredLinks;
  /**
   * What the last build that compiled found after loading (render problems, the checks against
   * git dates and other articles: warnings, when it succeeded), with the inputs it compiled and
   * the content folder its problems name files in: a build of the same inputs in the same folder
   * tells them again without compiling.
   */
  compiled: { inputs: string; contentDir: string; issues: ContentIssue[] } | null;
}

// 5: entries read before front matter had limits and control-character checks are not trusted.
// 7: nor those read before a long metaDescription was a warning; links and compile problems added.
const FORMAT = `build-state-7:${RENDERER_VERSION}`;

export function emptyBuildState(): BuildState {
  return {
    sources: new Map(),
    keys: new WeakMap(),
    imageHashes: new Map(),
    git: { head: null, changes: new Map(), published: new Map() },
    checked: new Map(),
    links: { map: new Map(), json: null },
    compiled: null,
  };
}

// v8 serialization (buildStateFileOf): Maps as they are, and faster than JSON for this shape
// (docs/benchmarks-log.md, "figures first recorded in code comments").

/**
 * On disk, `checked` keeps the keys of sources that rendered without problems in one list (nearly
 * all of them) apart from those with problems: 10,000 strings deserialize much faster than
 * 10,000 map entries each holding an empty array.
 */
interface StoredState extends Omit<BuildState, 'checked' | 'sources' | 'keys' | 'links'> {
  sources: StoredSource[];
  checked: { fine: string[]; problems: [string, RenderProblem[]][] };
  /** The links as JSON text: one string deserializes at once, and is parsed only by a build that compiles. */
  links: string;
}

/**
 * The links by input key, as loaded (`json`, not parsed yet: a build that changes nothing never
 * reads them, and they were half its load time as objects) or as a build found them (`map`).
 */
export interface StoredLinks {
  map: Map<string, ArticleLink[]> | null;
  json: string | null;
}

/** The links by input key (an article with none has an empty list). */
export function linksOf(state: BuildState): Map<string, ArticleLink[]> {
  if (state.links.map) return state.links.map;
  try {
    state.links.map = new Map(JSON.parse(state.links.json ?? '[]') as [string, ArticleLink[]][]);
  } catch {
    state.links.map = new Map(); // a cache: without it, every article is rendered again and checked
  }
  return state.links.map;
}

/**
 * A source entry on disk: file, size, mtimeMs, ctimeMs, ino, hash, meta as JSON (or null),
 * bodyLine, issues, build keys as [context, extra, checkKey, inputKey].
 */
type StoredSource = [
  string,
  number,
  number,
  number,
  number,
  string,
  string | null,
  number,
  ContentIssue[] | null,
  StoredKeys | null,
];
type StoredKeys = [string, string, string, string];

function storeSource(file: string, e: SourceEntry, k: ArticleKeys | undefined): StoredSource {
  if (e.meta && e.metaJson === undefined) e.metaJson = JSON.stringify(e.meta); // kept: the next save reuses it
  const keys: StoredKeys | null = k ? [k.context, k.extra, k.checkKey, k.inputKey] : null;
  return [
    file,
    e.size,
    e.mtimeMs,
    e.ctimeMs,
    e.ino,
    e.hash,
    e.meta ? e.metaJson! : null,
    e.bodyLine,
    e.issues ?? null,
    keys,
  ];
}

function loadSource(
  [file, size, mtimeMs, ctimeMs, ino, hash, metaJson, bodyLine, issues, keys]: StoredSource,
  memo: ArticleKeyMemo,
): [string, SourceEntry] {
  const entry: SourceEntry = {
    size,
    mtimeMs,
    ctimeMs,
    ino,
    hash,
    meta: metaJson === null ? null : JSON.parse(metaJson),
    bodyLine,
  };
  if (metaJson !== null) entry.metaJson = metaJson;
  if (issues) entry.issues = issues;
  if (keys) memo.set(entry, { context: keys[0], extra: keys[1], checkKey: keys[2], inputKey: keys[3] });
  return [file, entry];
}

const NO_PROBLEMS: RenderProblem[] = Object.freeze([]) as unknown as RenderProblem[];

/**
 * The last build's state; empty when there is none, or when it is another version's or damaged
 * (a cache: the build then reads, checks and renders everything). A file that is there but cannot
 * be read is a ProblemError naming it: a permission error is not a missing file.
 */
export function loadBuildState(stateDir: string): BuildState {
  const file = buildStateFileOf(stateDir);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    if (isMissingFile(err)) return emptyBuildState();
    throw new ProblemError(
      'BUILD_STATE_UNREADABLE',
      `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): ${fixFor('BUILD_STATE_UNREADABLE')}`,
      { cause: err },
    );
  }
  try {
    const raw = v8.deserialize(bytes) as { format: string; state: StoredState };
    if (raw.format !== FORMAT) return emptyBuildState();
    const { fine, problems } = raw.state.checked;
    const checked = new Map<string, RenderProblem[]>(problems);
    for (const key of fine) checked.set(key, NO_PROBLEMS);
    const keys: ArticleKeyMemo = new WeakMap();
    return {
      ...raw.state,
      sources: new Map(raw.state.sources.map((stored) => loadSource(stored, keys))),
      keys,
      checked,
      links: { map: null, json: raw.state.links },
    };
  } catch {
    return emptyBuildState(); // damaged (a torn write, another format): start afresh
  }
}

export function saveBuildState(stateDir: string, state: BuildState): void {
  const file = buildStateFileOf(stateDir);
  try {
    ensureStateDir(stateDir);
    makePrivateDir(cacheDirOf(stateDir));
    writeBuildState(file, state);
  } catch (err) {
    throw new Error(
      `could not save the build state to ${file} (${err instanceof Error ? err.message : String(err)}): is the state dir writable? dist/ was left as it was`,
      { cause: err },
    );
  }
}

function writeBuildState(file: string, state: BuildState): void {
  const fine: string[] = [];
  const problems: [string, RenderProblem[]][] = [];
  for (const [key, found] of state.checked) {
    if (found.length) problems.push([key, found]);
    else fine.push(key);
  }
  const sources = Array.from(state.sources, ([file, entry]) => storeSource(file, entry, state.keys.get(entry)));
  const stored: StoredState = {
    sources,
    imageHashes: state.imageHashes,
    git: state.git,
    checked: { fine, problems },
    links: state.links.map ? JSON.stringify([...state.links.map]) : (state.links.json ?? '[]'),
    compiled: state.compiled,
  };
  const data = v8.serialize({ format: FORMAT, state: stored });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
