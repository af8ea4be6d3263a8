// The build's work folder beside dist/ (src/export/writer/work-dir.ts), on real folders: its name
// and .gitignore, which trees are leftovers to delete (never a running build's, never the spare),
// and putting dist/ back after a build was killed between its two renames.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../../src/export/layout.ts';
import {
  findLeftovers,
  newTreePaths,
  recoverInterruptedSwap,
  SPARE_CHANGES_FILE,
  sparePath,
  workDirOf,
} from '../../../src/export/writer/work-dir.ts';

const DEAD_PID = 4_194_301; // above any pid this machine hands out

let root: string;
let dist: string;
let work: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-work-dir-'));
  dist = path.join(root, 'dist');
  work = workDirOf(dist);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A tree named `name` in `dir`; complete (its manifest written `ageMs` ago) unless ageMs is null. */
function tree(dir: string, name: string, ageMs: number | null, marker = name): string {
  const folder = path.join(dir, name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'marker.txt'), marker);
  if (ageMs !== null) {
    fs.writeFileSync(path.join(folder, MANIFEST_FILE), '{}');
    const at = new Date(Date.now() - ageMs);
    fs.utimesSync(path.join(folder, MANIFEST_FILE), at, at);
  }
  return folder;
}
const markerOfDist = () => fs.readFileSync(path.join(dist, 'marker.txt'), 'utf8');

describe('the work folder', () => {
  it('is `.<dist>.work` beside dist/, with the spare in it', () => {
    expect(workDirOf('/srv/site/dist')).toBe('/srv/site/.dist.work');
    expect(workDirOf('/srv/site/public-out')).toBe('/srv/site/.public-out.work');
    expect(sparePath('/srv/site/dist')).toBe('/srv/site/.dist.work/spare');
  });

  it('is made with a .gitignore of everything, and names new trees by this process', () => {
    const { tmp, old } = newTreePaths(dist);
    expect(fs.readFileSync(path.join(work, '.gitignore'), 'utf8').split('\n')).toContain('*');
    expect(path.dirname(tmp)).toBe(work);
    expect(path.basename(tmp)).toMatch(new RegExp(`^tmp-${process.pid}-[0-9a-f]{8}$`));
    expect(path.basename(old)).toBe(path.basename(tmp).replace(/^tmp/, 'old'));
    expect(fs.existsSync(tmp)).toBe(false); // names only: the build makes the tree
    expect(newTreePaths(dist).tmp).not.toBe(tmp);
  });

  it('keeps a .gitignore that is there already', () => {
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, '.gitignore'), 'edited\n');
    newTreePaths(dist);
    expect(fs.readFileSync(path.join(work, '.gitignore'), 'utf8')).toBe('edited\n');
  });
});

describe('leftovers', () => {
  it('are the trees of builds that are not running, here and beside dist/ (older versions), but the spare in the work folder', () => {
    fs.mkdirSync(dist);
    const dead = [
      tree(work, `tmp-${DEAD_PID}-deadbeef`, null),
      tree(work, `old-${DEAD_PID}-0badc0de`, 1000),
      tree(root, `.dist.tmp-${DEAD_PID}-00ff00ff`, null),
      tree(root, '.dist.spare', 1000),
    ];
    tree(work, `tmp-${process.pid}-feedf00d`, null); // this process's build: running
    tree(work, 'spare', 1000);
    tree(work, 'notes', null); // not a tree name
    tree(root, '.other.tmp-1-ab', null); // beside another output folder
    expect(findLeftovers(dist).sort()).toEqual(dead.sort());
  });

  it('are none without a work folder', () => {
    fs.mkdirSync(dist);
    expect(findLeftovers(dist)).toEqual([]);
  });
});

describe('recovering dist/ after a build was killed between its renames', () => {
  it('does nothing while dist/ is there', () => {
    tree(root, 'dist', 0, 'served');
    tree(work, `old-${DEAD_PID}-aa`, 0);
    expect(recoverInterruptedSwap(dist)).toBeNull();
    expect(markerOfDist()).toBe('served');
  });

  it('puts back the tree that build was replacing (what was served) first', () => {
    const old = tree(work, `old-${DEAD_PID}-aa`, 60_000, 'served');
    tree(work, `tmp-${DEAD_PID}-bb`, 1000, 'new');
    tree(work, 'spare', 0, 'spare');
    expect(recoverInterruptedSwap(dist)).toBe(old);
    expect(markerOfDist()).toBe('served');
    expect(fs.existsSync(old)).toBe(false);
  });

  it('else the finished new tree, else the spare (without its change list); never an unfinished or running one', () => {
    tree(work, `tmp-${DEAD_PID}-cc`, null, 'unfinished');
    tree(work, `old-${process.pid}-dd`, 0, 'running');
    const spare = tree(work, 'spare', 0, 'spare');
    fs.writeFileSync(path.join(spare, SPARE_CHANGES_FILE), '[]');
    const finished = tree(work, `tmp-${DEAD_PID}-ee`, 5000, 'new');
    expect(recoverInterruptedSwap(dist)).toBe(finished);
    expect(markerOfDist()).toBe('new');

    fs.rmSync(dist, { recursive: true });
    expect(recoverInterruptedSwap(dist)).toBe(spare);
    expect(markerOfDist()).toBe('spare');
    expect(fs.existsSync(path.join(dist, SPARE_CHANGES_FILE))).toBe(false);
  });

  it('of two finished trees of one kind, takes the newer', () => {
    tree(work, `old-${DEAD_PID}-01`, 60_000, 'older');
    tree(work, `old-${DEAD_PID}-02`, 1000, 'newer');
    recoverInterruptedSwap(dist);
    expect(markerOfDist()).toBe('newer');
  });

  it('finds nothing to put back when no complete tree is left', () => {
    tree(work, `tmp-${DEAD_PID}-cc`, null);
    expect(recoverInterruptedSwap(dist)).toBeNull();
    expect(fs.existsSync(dist)).toBe(false);
  });
});
