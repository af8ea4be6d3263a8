// The state dir's names are spelled in one module (src/config/state-layout.ts): what the real
// commands leave in a state dir is read from the disk, and each entry must be one it names.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildStateFileOf,
  cacheDirOf,
  keysFileOf,
  previewRootOf,
  renderCacheFileOf,
  secretFileOf,
  stateDbFileOf,
} from '../../src/config/state-layout.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

/** Every file and folder under `dir`, as absolute paths. */
function entriesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((rel) => path.join(dir, rel));
}

describe('the state dir layout', () => {
  it('names every file a build, `keys` and a rotation leave in the state dir', { timeout: 60_000 }, async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/live.md', article({ title: 'Live', status: 'published', publishedAt: '2026-05-01' }));
    p.write('one/articles/plans.md', article({ title: 'Plans', status: 'draft' }));
    const env = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir };
    for (const args of [['build'], ['keys'], ['keys', 'rotate', 'one']]) {
      const r = await runCli(args, env);
      expect({ args, code: r.code, stderr: r.stderr }).toMatchObject({ args, code: 0 });
    }
    const s = p.stateDir;
    const named = [
      secretFileOf(s),
      keysFileOf(s),
      stateDbFileOf(s),
      cacheDirOf(s),
      renderCacheFileOf(s),
      buildStateFileOf(s),
      previewRootOf(s),
    ];
    // SQLite's journal files beside its databases; a preview tree's files under the root.
    const isNamed = (entry: string) =>
      named.some((n) => entry === n || entry === `${n}-wal` || entry === `${n}-shm`) ||
      entry.startsWith(previewRootOf(s) + path.sep);
    const entries = entriesUnder(s);
    expect(entries.filter((e) => !isNamed(e))).toEqual([]);
    for (const file of [secretFileOf(s), keysFileOf(s), renderCacheFileOf(s), buildStateFileOf(s)])
      expect(entries, file).toContain(file);
  });
});
