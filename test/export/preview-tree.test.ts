// A build's preview tree, its format and file names (src/export/preview-tree.ts): every file its
// manifest describes, and a manifest that is not one of this version read as none (the tree is
// output, written anew by the next build), never as drafts.
import { describe, expect, it } from 'vitest';
import {
  parsePreviewManifest,
  previewArticleFile,
  previewFiles,
  previewImageFile,
  previewItemFile,
  previewManifestJson,
  PREVIEW_FORMAT,
  PREVIEW_MANIFEST_FILE,
  previewTreeFiles,
  type PreviewDraft,
  type PreviewManifest,
} from '../../src/export/preview-tree.ts';

const draft: PreviewDraft = {
  file: 'plan.md',
  sourceHash: 's',
  inputKey: 'k',
  bodyHash: 'b',
  itemHash: 'i',
  kind: 'standard',
  publishedAt: null,
  updatedAt: null,
  images: ['images/sketch.png'],
};
const manifest: PreviewManifest = {
  format: PREVIEW_FORMAT,
  buildId: 'build0123',
  sites: {
    one: {
      drafts: { plan: draft, idea: { ...draft, file: 'idea.md' } },
      images: { 'images/sketch.png': 'sketch.h1.png', 'images/d/x.jpg': 'd/x.h2.jpg' },
    },
    two: { drafts: {}, images: { 'images/only.gif': 'only.h3.gif' } },
  },
};

describe("the preview tree's names", () => {
  it("put a draft's body, its list item and draft-only images under its site", () => {
    expect(PREVIEW_MANIFEST_FILE).toBe('preview.json');
    expect(previewArticleFile('one', 'plan')).toBe('one/articles/plan.json');
    expect(previewItemFile('one', 'plan')).toBe('one/items/plan.json');
    expect(previewImageFile('one', 'd/x.h2.jpg')).toBe('one/images/d/x.h2.jpg');
    expect(previewFiles('one', 'plan')).toEqual(['one/articles/plan.json', 'one/items/plan.json']);
  });

  it('list every file of the tree its manifest describes, and only those', () => {
    expect(previewTreeFiles(manifest).sort()).toEqual(
      [
        'one/articles/plan.json',
        'one/items/plan.json',
        'one/articles/idea.json',
        'one/items/idea.json',
        'one/images/sketch.h1.png',
        'one/images/d/x.h2.jpg',
        'two/images/only.h3.gif',
      ].sort(),
    );
    expect(previewTreeFiles({ format: PREVIEW_FORMAT, buildId: 'b', sites: {} })).toEqual([]);
  });
});

describe('the preview manifest', () => {
  it('is one line of JSON that reads back as written', () => {
    const text = previewManifestJson(manifest);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(parsePreviewManifest(text)).toEqual(manifest);
  });

  it('that is damaged or of another version is none (null), never an error', () => {
    const { buildId: _id, ...withoutBuildId } = manifest;
    for (const text of [
      '',
      '{"format":1,',
      'null',
      '[]',
      JSON.stringify({ ...manifest, format: PREVIEW_FORMAT + 1 }),
      JSON.stringify(withoutBuildId),
      JSON.stringify({ ...manifest, buildId: 3 }),
      JSON.stringify({ ...manifest, sites: null }),
      JSON.stringify({ ...manifest, sites: 'one' }),
    ]) {
      expect(parsePreviewManifest(text), text.slice(0, 40)).toBeNull();
    }
  });
});
