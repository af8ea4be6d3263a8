// The small edits a build makes to the tree it writes (src/export/writer/tree-edits.ts), on a
// real folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkOrCopy, removeFiles, writeFileParts } from '../../../src/export/writer/tree-edits.ts';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tree-edits-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const put = (rel: string, text = rel) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};

describe('tree edits', () => {
  it('removeFiles deletes files and the folders they leave empty, and takes one already gone', () => {
    put('tree/one/articles/a.json');
    put('tree/one/images/deep/x.png');
    put('tree/one/images/y.png');
    removeFiles(path.join(root, 'tree'), [
      'one/articles/a.json',
      'one/images/deep/x.png',
      'one/articles/never-there.json',
    ]);
    expect(fs.existsSync(path.join(root, 'tree/one/articles'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'tree/one/images/deep'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'tree/one/images'))).toEqual(['y.png']);
  });

  it('linkOrCopy links into a folder it makes, and says false for a source that is not there', () => {
    put('from/one/articles/a.json');
    const target = path.join(root, 'to/one/articles/a.json');
    expect(linkOrCopy(path.join(root, 'from/one/articles/a.json'), target)).toBe(true);
    expect(fs.statSync(target).ino).toBe(fs.statSync(path.join(root, 'from/one/articles/a.json')).ino);
    expect(
      linkOrCopy(path.join(root, 'from/one/articles/gone.json'), path.join(root, 'to/one/articles/gone.json')),
    ).toBe(false);
    expect(linkOrCopy(path.join(root, 'from/one/articles/a.json/under-a-file'), path.join(root, 'to/x.json'))).toBe(
      false,
    );
  });

  it('writeFileParts writes every part, more than one writev takes', () => {
    const parts = Array.from({ length: 3000 }, (_, i) => new TextEncoder().encode(`${i},`));
    const file = path.join(root, 'parts.txt');
    writeFileParts(file, parts);
    expect(fs.readFileSync(file, 'utf8')).toBe(Array.from({ length: 3000 }, (_, i) => `${i},`).join(''));
  });
});
