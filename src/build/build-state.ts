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

const FORMAT = `build-state-1:${RENDERER_VERSION}`;

export function emptyBuildState(): BuildState {
  return { sources: new Map(), imageHashes: new Map(), git: { head: null, changes: new Map(), published: new Map() }, checked: new Map() };
}

// v8 serialization: Maps as they are, and several times faster than JSON for this shape.
const stateFile = (stateDir: string) => path.join(stateDir, 'cache', 'build-state.v8');

export function loadBuildState(stateDir: string): BuildState {
  try {
    const raw = v8.deserialize(fs.readFileSync(stateFile(stateDir))) as { format: string; state: BuildState };
    return raw.format === FORMAT ? raw.state : emptyBuildState();
  } catch {
    return emptyBuildState(); // none yet, or unreadable: start afresh
  }
}

export function saveBuildState(stateDir: string, state: BuildState): void {
  const file = stateFile(stateDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const data = v8.serialize({ format: FORMAT, state });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
