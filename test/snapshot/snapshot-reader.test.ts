import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { assembleSnapshot, type Snapshot, type TreeFiles } from '../../src/snapshot/snapshot-reader.ts';
import { treeFiles } from '../../src/export/layout.ts';
import { loadLocalSnapshot, openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { buildTwoSites, PNG_BYTES } from '../api/fixture.ts';

let project: TempProject;
let cover: string;

beforeAll(async () => {
  project = await buildTwoSites();
  cover = Object.values(readManifest(project.distDir)!.sites.alpha!.images)[0]!;
});
afterAll(() => project?.cleanup());

/** What a reader's callers see of a snapshot: every body with its ETag, the list's items and pages. */
function view(snap: Snapshot) {
  return [...snap.sites.values()].map((s) => ({
    id: s.id,
    summary: s.summary,
    list: [Buffer.from(s.list.bytes).toString(), s.list.etag],
    items: s.items,
    page: s.filtered
      .select({ kind: null, updatedSince: null, limit: 2, offset: 1 })
      .items.map((b) => Buffer.from(b).toString()),
    articles: [...s.articles].map(([slug, b]) => [slug, Buffer.from(b.bytes).toString(), b.etag]),
    images: [...s.images],
  }));
}

describe('the local dist reader', () => {
  it("reads the current build's images by site and hashed name, and nothing else", async () => {
    const reader = openLocalSnapshot(project.distDir, project.stateDir);
    expect(await reader.readImage('alpha', cover)).toBeNull(); // nothing loaded yet
    expect(reader.reload()).toBe(true);
    expect(Buffer.from((await reader.readImage('alpha', cover))!).equals(PNG_BYTES)).toBe(true);
    expect(await reader.readImage('beta', cover)).toBeNull();
    expect(await reader.readImage('alpha', 'cover.png')).toBeNull();
    expect(await reader.readImage('alpha', `../alpha/images/${cover}`)).toBeNull();
    expect(await reader.readImage('alpha', '../manifest.json')).toBeNull();
    // A file beside the images that the manifest does not list is not served.
    fs.writeFileSync(path.join(project.distDir, 'alpha', 'images', 'stray.png'), PNG_BYTES);
    expect(await reader.readImage('alpha', 'stray.png')).toBeNull();
    fs.rmSync(path.join(project.distDir, 'alpha', 'images', 'stray.png'));
  });

  it('drops an image the new build no longer has once it loads that build', async () => {
    const p = createTempProject();
    try {
      writeSite(p, 'one');
      p.write('one/images/pic.png', PNG_BYTES);
      p.write('one/articles/a.md', article({ title: 'A', status: 'published', image: 'pic.png' }));
      const settings = { ...p, publicUrl: 'http://127.0.0.1' };
      expect((await buildExport(settings)).ok).toBe(true);
      const reader = openLocalSnapshot(p.distDir, p.stateDir);
      reader.reload();
      const pic = [...reader.current()!.sites.get('one')!.images][0]!;
      expect(await reader.readImage('one', pic)).not.toBeNull();
      p.write('one/articles/a.md', article({ title: 'A', status: 'published' }));
      expect((await buildExport(settings)).ok).toBe(true);
      expect(reader.reload()).toBe(true);
      expect(await reader.readImage('one', pic)).toBeNull();
    } finally {
      p.cleanup();
    }
  });
});

describe("a snapshot assembled from the tree's files by key", () => {
  const inMemory = (distDir: string): { files: TreeFiles; objects: Map<string, Uint8Array> } => {
    const manifest = readManifest(distDir)!;
    const objects = new Map(
      treeFiles(manifest).map((key) => [key, new Uint8Array(fs.readFileSync(path.join(distDir, key)))]),
    );
    const files: TreeFiles = {
      read(key) {
        const bytes = objects.get(key);
        if (!bytes) throw new Error(`no object ${key}`);
        return bytes;
      },
      name: (key) => `bucket:${key}`,
    };
    return { files, objects };
  };

  it('equals what the local reader loads, so a reader of object storage can serve the same bytes', () => {
    const { files } = inMemory(project.distDir);
    const assembled = assembleSnapshot(readManifest(project.distDir)!, files);
    const local = loadLocalSnapshot(project.distDir)!;
    expect(assembled.buildId).toBe(local.buildId);
    expect(view(assembled)).toEqual(view(local));
    expect(view(local)[0]!.articles.length).toBeGreaterThan(0);
  });

  it('refuses a list index that belongs to another list, naming it as its reader does', () => {
    const { files, objects } = inMemory(project.distDir);
    objects.set('alpha/articles.index.json', objects.get('beta/articles.index.json')!);
    expect(() => assembleSnapshot(readManifest(project.distDir)!, files)).toThrow(
      /^bucket:alpha\/articles\.index\.json: belongs to another articles\.json/,
    );
  });
});
