// Writing a build's preview tree (src/export/writer/preview-writer.ts), on real folders: files and
// folders of its user only, the tree put in place under its build id with its manifest, what the
// build did not write taken over from the previous tree as links, and nothing left by an abort.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PREVIEW_FORMAT,
  PREVIEW_MANIFEST_FILE,
  parsePreviewManifest,
  type PreviewDraft,
  type PreviewManifest,
} from '../../../src/export/preview-tree.ts';
import { previewTreeOf } from '../../../src/export/preview-trees.ts';
import { PreviewWriter } from '../../../src/export/writer/preview-writer.ts';

let dir: string;
let root: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-preview-writer-'));
  root = path.join(dir, 'preview');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const draft: PreviewDraft = {
  file: 'x.md',
  sourceHash: 's',
  inputKey: 'k',
  bodyHash: 'b',
  itemHash: 'i',
  kind: 'standard',
  publishedAt: null,
  updatedAt: null,
  images: [],
};
/** The manifest of a build with drafts `slugs` of site one, and draft-only images `images` (site path → name). */
const manifestOf = (buildId: string, slugs: string[], images: Record<string, string> = {}): PreviewManifest => ({
  format: PREVIEW_FORMAT,
  buildId,
  sites: { one: { drafts: Object.fromEntries(slugs.map((s) => [s, draft])), images } },
});
const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
/** Every entry under `root` but the trees, i.e. work trees left behind. */
const workTrees = () => fs.readdirSync(root).filter((name) => name.startsWith('.'));

/** A first build's tree: drafts a and b, one image. */
function firstTree(): { manifest: PreviewManifest; tree: string } {
  const writer = new PreviewWriter(root, null);
  writer.write('one/articles/a.json', '{"slug":"a"}');
  writer.write('one/items/a.json', '{"slug":"a","i":1}');
  writer.write('one/articles/b.json', '{"slug":"b"}');
  writer.write('one/items/b.json', '{"slug":"b","i":1}');
  const source = path.join(dir, 'sketch.png');
  fs.writeFileSync(source, 'png bytes', { mode: 0o644 });
  writer.copyNamedByContent('one/images/sketch.h1.png', source);
  const manifest = manifestOf('Build1', ['a', 'b'], { 'images/sketch.png': 'sketch.h1.png' });
  return { manifest, tree: writer.commit(manifest) };
}

describe('a preview tree written by a build', () => {
  it('is put in place under its build id with its manifest, folders 0700 and files 0600', () => {
    const { manifest, tree } = firstTree();
    expect(tree).toBe(previewTreeOf(root, 'Build1'));
    expect(parsePreviewManifest(fs.readFileSync(path.join(tree, PREVIEW_MANIFEST_FILE), 'utf8'))).toEqual(manifest);
    expect(fs.readFileSync(path.join(tree, 'one/articles/a.json'), 'utf8')).toBe('{"slug":"a"}');
    expect(fs.readFileSync(path.join(tree, 'one/images/sketch.h1.png'), 'utf8')).toBe('png bytes');
    for (const folder of [tree, path.join(tree, 'one'), path.join(tree, 'one/articles'), path.join(tree, 'one/images')])
      expect(modeOf(folder), folder).toBe('700');
    for (const file of ['preview.json', 'one/articles/a.json', 'one/items/b.json', 'one/images/sketch.h1.png'])
      expect(modeOf(path.join(tree, file)), file).toBe('600');
    expect(workTrees()).toEqual([]);
  });

  it('takes over what the build did not write from the previous tree, as links to the same files', () => {
    const first = firstTree();
    const writer = new PreviewWriter(root, first.manifest);
    writer.write('one/articles/b.json', '{"slug":"b","edited":true}');
    writer.write('one/items/b.json', '{"slug":"b","i":2}');
    writer.copyNamedByContent('one/images/sketch.h1.png', path.join(dir, 'never-read.png')); // the previous tree has it: linked
    const tree = writer.commit(manifestOf('Build2', ['a', 'b'], { 'images/sketch.png': 'sketch.h1.png' }));
    const inode = (t: string, rel: string) => fs.statSync(path.join(t, rel)).ino;
    expect(inode(tree, 'one/articles/a.json')).toBe(inode(first.tree, 'one/articles/a.json'));
    expect(inode(tree, 'one/items/a.json')).toBe(inode(first.tree, 'one/items/a.json'));
    expect(inode(tree, 'one/images/sketch.h1.png')).toBe(inode(first.tree, 'one/images/sketch.h1.png'));
    expect(fs.readFileSync(path.join(tree, 'one/articles/b.json'), 'utf8')).toBe('{"slug":"b","edited":true}');
    expect(fs.readFileSync(path.join(first.tree, 'one/articles/b.json'), 'utf8')).toBe('{"slug":"b"}'); // the previous tree is untouched
  });

  it('refuses to complete when a file it must take over is gone from the previous tree', () => {
    const first = firstTree();
    fs.rmSync(path.join(first.tree, 'one/items/a.json'));
    const writer = new PreviewWriter(root, first.manifest);
    expect(() => writer.commit(manifestOf('Build2', ['a']))).toThrow(
      'the preview tree of the current build changed during the build: one/items/a.json is gone',
    );
    writer.abort();
    expect(fs.existsSync(previewTreeOf(root, 'Build2'))).toBe(false);
  });

  it('replaces a tree of the same build id that is there already', () => {
    const stale = previewTreeOf(root, 'Build1');
    fs.mkdirSync(path.join(stale, 'one'), { recursive: true });
    fs.writeFileSync(path.join(stale, 'one', 'stale.json'), 'from a build stopped before its swap');
    const { tree } = firstTree();
    expect(tree).toBe(stale);
    expect(fs.existsSync(path.join(tree, 'one', 'stale.json'))).toBe(false);
    expect(fs.readFileSync(path.join(tree, 'one/articles/a.json'), 'utf8')).toBe('{"slug":"a"}');
    expect(workTrees()).toEqual([]);
  });

  it('leaves nothing behind when the build aborts', () => {
    const writer = new PreviewWriter(root, null);
    writer.write('one/articles/a.json', '{}');
    expect(workTrees()).toHaveLength(1);
    writer.abort();
    expect(fs.readdirSync(root)).toEqual([]);
  });
});
