// dist/ is the static export: safe to publish as it is, with any tool. No byte of a draft may be
// in it (nor in the work folder beside it): not its body, its list item, its slug or title, nor
// an image only drafts use, in any file (the manifest included, compressed files decompressed)
// or file name. Drafts are in the build's preview tree in the state dir instead, private to its
// user. Real builds over real temp folders.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { readManifest } from '../../src/export/export-files.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const settings = () => ({
  contentDir: p.contentDir,
  distDir: p.distDir,
  stateDir: p.stateDir,
  publicUrl: 'https://api.example.com',
});

/** What identifies the draft, and only it, in any output. */
const DRAFT_TRACES = [
  'xqdraftslug',
  'Xq Draft Title',
  'XQ-DRAFT-BODY',
  'XQ-DRAFT-ONLY-IMAGE-BYTES',
  'xqdraftonly',
  'xqdraftsource',
];

function setup(): void {
  p = createTempProject();
  writeSite(p, 'site');
  p.write('site/images/public.png', 'public-image');
  p.write('site/images/xqdraftonly.png', 'XQ-DRAFT-ONLY-IMAGE-BYTES');
  p.write(
    'site/articles/live.md',
    article(
      { title: 'Live', status: 'published', image: 'public.png', publishedAt: '2026-01-01' },
      'Published words.\n',
    ),
  );
  p.write(
    'site/articles/xqdraftsource.md',
    article({ slug: 'xqdraftslug', title: 'Xq Draft Title', image: 'xqdraftonly.png' }, 'XQ-DRAFT-BODY\n'),
  );
}

/** Every trace of the draft under `root`: `<file>: <trace>`, in names and in bytes (decompressed where compressed). */
function draftTracesUnder(root: string): string[] {
  const found: string[] = [];
  const look = (rel: string, text: string) => {
    for (const trace of DRAFT_TRACES) if (text.includes(trace)) found.push(`${rel}: ${trace}`);
  };
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      look(rel, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const bytes = fs.readFileSync(full);
      look(rel, bytes.toString('latin1'));
      if (rel.endsWith('.br')) look(rel, zlib.brotliDecompressSync(bytes).toString('latin1'));
      if (rel.endsWith('.gz')) look(rel, zlib.gunzipSync(bytes).toString('latin1'));
    }
  };
  walk(root);
  return found;
}

describe('drafts and the export folder', () => {
  it('nothing under dist/, nor in the work folder beside it, holds a trace of a draft', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    // A second build (a published and a draft edit) leaves the replaced tree as the spare beside dist/.
    p.write(
      'site/articles/live.md',
      article(
        { title: 'Live', status: 'published', image: 'public.png', publishedAt: '2026-01-01' },
        'Published words, edited.\n',
      ),
    );
    p.write(
      'site/articles/xqdraftsource.md',
      article({ slug: 'xqdraftslug', title: 'Xq Draft Title', image: 'xqdraftonly.png' }, 'XQ-DRAFT-BODY, edited\n'),
    );
    const second = await buildExport(settings());
    expect(second).toMatchObject({ ok: true, written: true });
    await second.cleanup();
    expect(fs.existsSync(path.join(p.distDir, 'site/articles/live.json'))).toBe(true); // the walk has something to look at
    expect(draftTracesUnder(p.distDir)).toEqual([]);
    expect(draftTracesUnder(path.join(p.root, '.dist.work'))).toEqual([]);
  });

  it("drafts are in the build's preview tree in the state dir, readable by its user only; unchanged files are links to the previous tree's", async () => {
    setup();
    const first = await buildExport(settings());
    const root = path.join(p.stateDir, 'preview');
    const tree = path.join(root, first.manifest!.buildId);
    expect(filesUnder(tree)).toEqual([
      'preview.json',
      'site/articles/xqdraftslug.json',
      expect.stringMatching(/^site\/images\/xqdraftonly\.[0-9a-f]{16}\.png$/),
      'site/items/xqdraftslug.json',
    ]);
    expect(fs.readFileSync(path.join(tree, 'site/articles/xqdraftslug.json'), 'utf8')).toContain('XQ-DRAFT-BODY');
    for (const dir of [root, ...dirsUnder(tree)]) expect(fs.statSync(dir).mode & 0o777, dir).toBe(0o700);
    for (const file of filesUnder(tree)) expect(fs.statSync(path.join(tree, file)).mode & 0o777, file).toBe(0o600);

    // A published edit: a new build id, a new tree, the draft's files taken over as links.
    p.write(
      'site/articles/live.md',
      article(
        { title: 'Live', status: 'published', image: 'public.png', publishedAt: '2026-01-01' },
        'Published words, edited.\n',
      ),
    );
    const second = await buildExport(settings());
    const next = path.join(root, second.manifest!.buildId);
    expect(next).not.toBe(tree);
    expect(filesUnder(next)).toEqual(filesUnder(tree));
    for (const file of filesUnder(tree).filter((f) => f !== 'preview.json'))
      expect(fs.statSync(path.join(next, file)).ino, file).toBe(fs.statSync(path.join(tree, file)).ino);
  });

  it('keeps the preview tree of the build dist/ replaced (readers may still be on it) and deletes older ones', async () => {
    setup();
    const ids: string[] = [];
    for (const words of ['one', 'two', 'three']) {
      p.write(
        'site/articles/xqdraftsource.md',
        article({ slug: 'xqdraftslug', title: 'Xq Draft Title' }, `XQ-DRAFT-BODY ${words}\n`),
      );
      const result = await buildExport(settings());
      expect(result.written).toBe(true);
      ids.push(result.manifest!.buildId);
      // Builds apart in time: a tree finished while a build runs may be a concurrent build's, and is kept.
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(path.join(p.stateDir, 'preview', result.manifest!.buildId, 'preview.json'), old, old);
    }
    expect(fs.readdirSync(path.join(p.stateDir, 'preview')).sort()).toEqual(ids.slice(1).sort());
  });

  it('rebuilds a dist/ of format 5 in full: its `_preview/` folder goes, and its manifest names no draft', async () => {
    setup();
    expect((await buildExport(settings())).ok).toBe(true);
    // What a build of format 5 left: the drafts in dist/_preview/, named by the manifest.
    const manifestFile = path.join(p.distDir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
      format: number;
      sites: { site: Record<string, unknown> };
    };
    manifest.sites.site.drafts = { xqdraftslug: { file: 'articles/xqdraftsource.md' } };
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, format: 5 }));
    fs.mkdirSync(path.join(p.distDir, '_preview/site/articles'), { recursive: true });
    fs.writeFileSync(path.join(p.distDir, '_preview/site/articles/xqdraftslug.json'), '{"html":"XQ-DRAFT-BODY"}');
    const rebuilt = await buildExport(settings());
    expect(rebuilt).toMatchObject({ ok: true, written: true });
    expect(readManifest(p.distDir)!.format).toBe(6);
    expect(fs.existsSync(path.join(p.distDir, '_preview'))).toBe(false);
    expect(draftTracesUnder(p.distDir)).toEqual([]);
    expect(
      fs.existsSync(path.join(p.stateDir, 'preview', rebuilt.manifest!.buildId, 'site/articles/xqdraftslug.json')),
    ).toBe(true);
  });

  it('writes the preview tree again when it is gone (a state dir lost), though nothing else changed', async () => {
    setup();
    const first = await buildExport(settings());
    const distBefore = filesUnder(p.distDir).map((f) => [f, fs.readFileSync(path.join(p.distDir, f), 'latin1')]);
    expect((await buildExport(settings())).written).toBe(false); // nothing to do while it is there
    fs.rmSync(path.join(p.stateDir, 'preview'), { recursive: true });
    const again = await buildExport(settings());
    expect(again).toMatchObject({ ok: true, written: true });
    expect(again.manifest!.buildId).toBe(first.manifest!.buildId);
    expect(
      fs.readFileSync(
        path.join(p.stateDir, 'preview', first.manifest!.buildId, 'site/articles/xqdraftslug.json'),
        'utf8',
      ),
    ).toContain('XQ-DRAFT-BODY');
    const distAfter = filesUnder(p.distDir).map((f) => [f, fs.readFileSync(path.join(p.distDir, f), 'latin1')]);
    expect(distAfter.filter(([f]) => f !== 'manifest.json')).toEqual(distBefore.filter(([f]) => f !== 'manifest.json'));
  });
});

/** The files under `root`, relative, sorted. */
function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

/** The folders under `root` and `root` itself. */
function dirsUnder(root: string): string[] {
  return [
    root,
    ...fs
      .readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(e.parentPath, e.name)),
  ];
}
