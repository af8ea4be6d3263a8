// Preview trees in the state dir (src/export/preview-trees.ts), on real folders: which ones a
// build deletes after its swap, and that a reader takes the drafts of the build its dist/ names,
// never those of a newer tree.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { previewRootOf } from '../../src/config/state-layout.ts';
import { sweepPreviewTrees } from '../../src/export/preview-trees.ts';
import { timedReader } from '../../src/snapshot/timed-view.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const DEAD_PID = 4_194_301; // above any pid this machine hands out

/** A finished tree (its manifest written `ageMs` ago), or a work tree (no manifest). */
function makeTree(root: string, name: string, ageMs: number | null): void {
  fs.mkdirSync(path.join(root, name, 'one', 'articles'), { recursive: true });
  fs.writeFileSync(path.join(root, name, 'one', 'articles', 'd.json'), '{}');
  if (ageMs === null) return;
  const manifest = path.join(root, name, 'preview.json');
  fs.writeFileSync(manifest, '{}');
  const at = new Date(Date.now() - ageMs);
  fs.utimesSync(manifest, at, at);
}

describe('sweeping preview trees after a swap', () => {
  it("deletes trees no dist/ names and work trees of builds that died; keeps the kept, trees finished since the build began, and running builds' work", () => {
    p = createTempProject();
    const root = previewRootOf(p.stateDir);
    const since = Date.now() - 30_000;
    makeTree(root, 'Current0123456789abcdefghijklmno', 60_000);
    makeTree(root, 'Replaced123456789abcdefghijklmno', 120_000);
    makeTree(root, 'Older0123456789abcdefghijklmnopq', 120_000);
    makeTree(root, 'Concurrent3456789abcdefghijklmno', 1_000); // another build's, finished while this one ran
    makeTree(root, `.tmp-${DEAD_PID}-deadbeef`, null);
    makeTree(root, `.old-${DEAD_PID}-0badc0de`, null);
    makeTree(root, `.tmp-${process.pid}-feedf00d`, null);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'not a tree: left alone');
    sweepPreviewTrees(root, new Set(['Current0123456789abcdefghijklmno', 'Replaced123456789abcdefghijklmno']), since);
    expect(fs.readdirSync(root).sort()).toEqual(
      [
        `.tmp-${process.pid}-feedf00d`,
        'Concurrent3456789abcdefghijklmno',
        'Current0123456789abcdefghijklmno',
        'Replaced123456789abcdefghijklmno',
        'notes.txt',
      ].sort(),
    );
  });
});

describe('a reader of dist/ and its preview trees', () => {
  it('shows the drafts of the build dist/ names, not those of a newer tree, and follows dist/ to the next build', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/live.md', article({ title: 'Live', status: 'published', publishedAt: '2026-01-01' }));
    p.write('one/articles/plan.md', article({ title: 'Plan' }, 'First draft words.\n'));
    const settings = {
      contentDir: p.contentDir,
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://127.0.0.1',
    };
    const first = await buildExport(settings);
    const reader = openLocalSnapshot(p.distDir, p.stateDir);
    reader.reload();
    const draftHtml = async () => {
      const site = await timedReader(reader).preview('one');
      return JSON.parse(Buffer.from(site!.articles.get('plan')!.bytes).toString()).html as string;
    };
    expect(await draftHtml()).toContain('First draft words.');

    // A tree of another build beside it (one stopped before its swap): not this dist/'s drafts.
    const root = previewRootOf(p.stateDir);
    const stray = path.join(root, 'Stray0123456789abcdefghijklmnopq');
    fs.cpSync(path.join(root, first.manifest!.buildId), stray, { recursive: true });
    const strayBody = path.join(stray, 'one', 'articles', 'plan.json');
    fs.writeFileSync(strayBody, fs.readFileSync(strayBody, 'utf8').replace('First draft words.', 'Stray words.'));
    expect(await draftHtml()).toContain('First draft words.');

    // A draft-only edit: a new build id, dist/ swapped, and the reader shows the new draft.
    p.write('one/articles/plan.md', article({ title: 'Plan' }, 'Second draft words.\n'));
    const second = await buildExport(settings);
    expect(second.manifest!.buildId).not.toBe(first.manifest!.buildId);
    expect(reader.reload()).toBe(true);
    expect(await draftHtml()).toContain('Second draft words.');
  });

  it("refuses a draft whose file is not the one its tree lists (the answer is a retry, never another build's draft)", async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/plan.md', article({ title: 'Plan' }, 'Draft words.\n'));
    const built = await buildExport({
      contentDir: p.contentDir,
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://127.0.0.1',
    });
    const body = path.join(previewRootOf(p.stateDir), built.manifest!.buildId, 'one', 'articles', 'plan.json');
    fs.writeFileSync(body, fs.readFileSync(body, 'utf8').replace('Draft words.', 'Other words.'));
    const reader = openLocalSnapshot(p.distDir, p.stateDir);
    reader.reload();
    await expect(reader.readDrafts(reader.current()!, 'one')).rejects.toThrow(/not those of build/);
    fs.rmSync(previewRootOf(p.stateDir), { recursive: true });
    const another = openLocalSnapshot(p.distDir, p.stateDir);
    another.reload();
    await expect(another.readDrafts(another.current()!, 'one')).rejects.toThrow(/has no preview tree/);
  });
});
