// The build's tree helper (src/export/writer/tree-helper.ts and its thread), a real worker thread
// on real folders: linking the current dist/ into a new tree (not its manifest; what the build
// wrote there wins), deleting replaced trees after the jobs before, and its end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../../src/export/layout.ts';
import { startTreeHelper, type TreeHelper } from '../../../src/export/writer/tree-helper.ts';

let dir: string;
let helper: TreeHelper | null;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tree-helper-'));
  helper = null;
});
afterEach(async () => {
  await helper?.terminate();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('the tree helper', () => {
  it('links every file of a tree into another but its manifest; a file the build wrote there wins', async () => {
    const from = path.join(dir, 'dist');
    const to = path.join(dir, 'tmp');
    for (const rel of [
      'one/articles.json',
      'one/articles/a.json',
      'one/articles/b.json',
      'one/images/d/x.h.png',
      MANIFEST_FILE,
    ])
      write(from, rel, `old ${rel}`);
    write(to, 'one/articles/b.json', 'new b'); // written by the build before the link
    helper = startTreeHelper();
    const linked = await helper.linkTree(from, to);
    expect(linked.sort()).toEqual(['one/articles.json', 'one/articles/a.json', 'one/images/d/x.h.png']);
    for (const rel of linked)
      expect(fs.statSync(path.join(to, rel)).ino, rel).toBe(fs.statSync(path.join(from, rel)).ino);
    expect(fs.readFileSync(path.join(to, 'one/articles/b.json'), 'utf8')).toBe('new b');
    expect(fs.existsSync(path.join(to, MANIFEST_FILE))).toBe(false);
  });

  it('deletes whole trees, after the jobs sent before', async () => {
    const from = path.join(dir, 'old-tree');
    write(from, 'one/articles/a.json', 'a');
    write(path.join(dir, 'other'), 'x.json', 'x');
    helper = startTreeHelper();
    const linking = helper.linkTree(from, path.join(dir, 'tmp'));
    const removing = helper.remove([from, path.join(dir, 'other'), path.join(dir, 'never-was')], true);
    expect(await linking).toEqual(['one/articles/a.json']); // linked before the tree was deleted
    await removing;
    expect(fs.readdirSync(dir)).toEqual(['tmp']);
    expect(fs.readFileSync(path.join(dir, 'tmp/one/articles/a.json'), 'utf8')).toBe('a');
  });

  it('answers a failed job with its reason, and goes on with the next', async () => {
    helper = startTreeHelper();
    await expect(helper.linkTree(path.join(dir, 'missing'), path.join(dir, 'tmp'))).rejects.toThrow(
      /^build helper: .*ENOENT/,
    );
    write(path.join(dir, 'dist'), 'a.json', 'a');
    expect(await helper.linkTree(path.join(dir, 'dist'), path.join(dir, 'tmp2'))).toEqual(['a.json']);
  });

  it('ends once the jobs sent so far are done; jobs after its end are refused', async () => {
    const tree = path.join(dir, 'old-tree');
    write(tree, 'a.json', 'a');
    helper = startTreeHelper();
    const removed = helper.remove([tree], false);
    helper.finish();
    await helper.waitUntilEnded();
    await removed;
    expect(fs.existsSync(tree)).toBe(false);
    await expect(helper.linkTree(dir, path.join(dir, 'tmp'))).rejects.toThrow('build helper exited');
  });
});
