// Branch previews' parts on their own: which names a --previews pattern takes (and which patterns
// are refused before git runs), which branches are kept past the bound (the most recently pushed),
// and the records a branch's folder keeps (a damaged one is not trusted).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBranchPatterns } from '../../src/follow/branch-pattern.ts';
import { noteTips, selectBranches, type SeenBranch } from '../../src/follow/branch-selection.ts';
import {
  branchPaths,
  findBranch,
  listBranchFolders,
  readFollowedBranch,
  writeBranchRecord,
  writeFollowedBranch,
} from '../../src/follow/branch-store.ts';
import { FollowSourceError } from '../../src/follow/follow-source.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-branches-'));
  dirs.push(dir);
  return dir;
};

describe('--previews patterns', () => {
  it('take the names they match, `*` across `/`, and never a name Quire would not follow', () => {
    const all = parseBranchPatterns(['*']);
    expect(['main', 'content/spring', 'a/b/c'].map(all.matches)).toEqual([true, true, true]);
    expect(['-x', 'a..b', 'a b', '.hidden', 'x.lock'].map(all.matches)).toEqual([false, false, false, false, false]);
    const content = parseBranchPatterns(['content/*', 'draft-*']);
    expect(content.shown).toBe('content/*, draft-*');
    expect(
      ['content/spring', 'content/a/b', 'draft-1', 'contents/x', 'content', 'x/draft-1'].map(content.matches),
    ).toEqual([true, true, true, false, false, false]);
    expect(parseBranchPatterns(['release.1']).matches('release-1')).toBe(false); // `.` is a dot
  });

  it.each(['--upload-pack=x', '', 'a..*', '*/../x', 'a b*', '[a-z]*', '*?'])('refuses the pattern %j', (pattern) => {
    expect(() => parseBranchPatterns([pattern])).toThrow(FollowSourceError);
  });
});

describe('past QUIRE_PREVIEW_BRANCHES_MAX', () => {
  const seen = (entries: [string, number][]) =>
    new Map<string, SeenBranch>(entries.map(([name, pushedAt]) => [name, { tip: 'a'.repeat(40), pushedAt }]));

  it('keeps the most recently pushed, ties by name', () => {
    expect(
      selectBranches(
        seen([
          ['a', 1],
          ['b', 3],
          ['c', 2],
          ['d', 3],
        ]),
        2,
      ),
    ).toEqual({
      keep: ['b', 'd'],
      dropped: ['c', 'a'],
    });
  });

  it('counts a branch as pushed when its commit moves or a push notification names it; at start, as its record says', () => {
    const known = new Map<string, SeenBranch>();
    const tips = new Map([
      ['old', '1'.repeat(40)],
      ['new', '2'.repeat(40)],
    ]);
    noteTips(known, tips, { now: 100, first: true, pushed: new Set(), recorded: (b) => (b === 'old' ? 50 : null) });
    expect(Object.fromEntries(known)).toEqual({
      old: { tip: '1'.repeat(40), pushedAt: 50 },
      new: { tip: '2'.repeat(40), pushedAt: 0 },
    });
    tips.set('new', '3'.repeat(40));
    tips.set('third', '4'.repeat(40));
    noteTips(known, tips, { now: 200, first: false, pushed: new Set(['old']), recorded: () => null });
    expect(Object.fromEntries(known)).toEqual({
      old: { tip: '1'.repeat(40), pushedAt: 200 },
      new: { tip: '3'.repeat(40), pushedAt: 200 },
      third: { tip: '4'.repeat(40), pushedAt: 200 },
    });
    tips.delete('old');
    noteTips(known, tips, { now: 300, first: false, pushed: new Set(), recorded: () => null });
    expect([...known.keys()]).toEqual(['new', 'third']);
    expect(known.get('new')!.pushedAt).toBe(200); // unchanged: not pushed again
  });
});

describe("a branch's folder", () => {
  it('is named by a hash of the branch, and its record is read back whole', () => {
    const root = tempDir();
    const paths = branchPaths(root, 'content/../../escape');
    expect(path.dirname(paths.dir)).toBe(root);
    expect(path.basename(paths.dir)).toMatch(/^b-[0-9a-f]{24}$/);
    const spring = branchPaths(root, 'content/spring');
    writeBranchRecord(spring.dir, { branch: 'content/spring', pushedAt: 5, built: 'c'.repeat(40) });
    expect(findBranch(root, 'content/spring')?.record).toEqual({
      branch: 'content/spring',
      pushedAt: 5,
      built: 'c'.repeat(40),
    });
    expect(fs.statSync(path.join(spring.dir, 'branch.json')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(spring.dir).mode & 0o777).toBe(0o700);
    expect(findBranch(root, 'content/autumn')).toBe(null);
    writeFollowedBranch(root, 'main');
    expect(readFollowedBranch(root)).toBe('main');
  });

  it('is not trusted when its record is damaged, names another branch, or names one Quire would not follow', () => {
    const root = tempDir();
    const good = branchPaths(root, 'good');
    writeBranchRecord(good.dir, { branch: 'good', pushedAt: 1, built: null });
    const damaged = branchPaths(root, 'damaged').dir;
    fs.mkdirSync(damaged);
    fs.writeFileSync(path.join(damaged, 'branch.json'), '{"branch": "damaged", "pushedAt"');
    const elsewhere = branchPaths(root, 'elsewhere').dir;
    writeBranchRecord(elsewhere, { branch: 'good', pushedAt: 1, built: null });
    const badName = branchPaths(root, 'bad').dir;
    writeBranchRecord(badName, { branch: '--upload-pack=x', pushedAt: 1, built: null });
    fs.mkdirSync(path.join(root, 'repo'));
    const found = Object.fromEntries(
      listBranchFolders(root).map((f) => [path.basename(f.dir), f.record?.branch ?? null]),
    );
    expect(found).toEqual({
      [path.basename(good.dir)]: 'good',
      [path.basename(damaged)]: null,
      [path.basename(elsewhere)]: null,
      [path.basename(badName)]: null,
    });
  });
});
