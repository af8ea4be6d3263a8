// What a build learns and the next one reuses, kept in the state dir: each source file's stat,
// hash and parsed front matter; image hashes; git history at a HEAD; and the render problems
// already found per source, so unchanged drafts are not rendered again just to be checked.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { GitHistoryCache } from '../content/git-history.ts';
import type { SourceCache } from '../content/load-content.ts';
import type { RenderProblem } from '../render/render-context.ts';
import { RENDERER_VERSION } from '../render/render-markdown.ts';
import type { ImageHashCache } from './images.ts';

export interface BuildState {
  sources: SourceCache;
  imageHashes: ImageHashCache;
  git: GitHistoryCache;
  /** Render problems by check key (source, renderer, images): empty when the body was fine. */
  checked: Map<string, RenderProblem[]>;
}

const FORMAT = `build-state-2:${RENDERER_VERSION}`;

export function emptyBuildState(): BuildState {
  return { sources: new Map(), imageHashes: new Map(), git: { head: null, changes: new Map(), published: new Map() }, checked: new Map() };
}

// v8 serialization: Maps as they are, and several times faster than JSON for this shape.
const stateFile = (stateDir: string) => path.join(stateDir, 'cache', 'build-state.v8');

/**
 * On disk, `checked` keeps the keys of sources that rendered without problems in one list (nearly
 * all of them) apart from those with problems: 10,000 strings deserialize much faster than
 * 10,000 map entries each holding an empty array.
 */
interface StoredState extends Omit<BuildState, 'checked'> {
  checked: { fine: string[]; problems: [string, RenderProblem[]][] };
}

const NO_PROBLEMS: RenderProblem[] = Object.freeze([]) as unknown as RenderProblem[];

export function loadBuildState(stateDir: string): BuildState {
  try {
    const raw = v8.deserialize(fs.readFileSync(stateFile(stateDir))) as { format: string; state: StoredState };
    if (raw.format !== FORMAT) return emptyBuildState();
    const { fine, problems } = raw.state.checked;
    const checked = new Map<string, RenderProblem[]>(problems);
    for (const key of fine) checked.set(key, NO_PROBLEMS);
    return { ...raw.state, checked };
  } catch {
    return emptyBuildState(); // none yet, or unreadable: start afresh
  }
}

export function saveBuildState(stateDir: string, state: BuildState): void {
  const file = stateFile(stateDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fine: string[] = [];
  const problems: [string, RenderProblem[]][] = [];
  for (const [key, found] of state.checked) {
    if (found.length) problems.push([key, found]);
    else fine.push(key);
  }
  const stored: StoredState = { ...state, checked: { fine, problems } };
  const data = v8.serialize({ format: FORMAT, state: stored });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
