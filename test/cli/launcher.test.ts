// The `quire` launcher: runs the CLI from an esbuild bundle named by a fingerprint of src/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBundle, pruneOldBundles, sourceFingerprint } from '../../bin/cli-bundle.js';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject | undefined;
let tmp: string | undefined;
afterEach(() => {
  p?.cleanup();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  p = tmp = undefined;
});

describe('the bundled CLI', () => {
  it('is fingerprinted by every source file: an edit, a new file or a removal changes it', () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-fp-'));
    fs.mkdirSync(path.join(tmp, 'a'));
    fs.writeFileSync(path.join(tmp, 'a', 'x.ts'), 'export const x = 1;\n');
    const first = sourceFingerprint(tmp);
    expect(sourceFingerprint(tmp)).toBe(first);
    fs.writeFileSync(path.join(tmp, 'a', 'x.ts'), 'export const x = 22;\n');
    const edited = sourceFingerprint(tmp);
    expect(edited).not.toBe(first);
    fs.writeFileSync(path.join(tmp, 'y.ts'), '');
    const added = sourceFingerprint(tmp);
    expect(added).not.toBe(edited);
    fs.rmSync(path.join(tmp, 'y.ts'));
    expect(sourceFingerprint(tmp)).toBe(edited);
  });

  it('holds the CLI and the render worker under the name the render pool starts it by', async () => {
    const dir = await ensureBundle();
    expect(path.basename(dir)).toBe(sourceFingerprint());
    expect(fs.existsSync(path.join(dir, 'main.mjs'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'render-worker-entry.mjs'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'tree-helper-entry.mjs'))).toBe(true);
    // Concurrent callers agree on one bundle.
    const again = await Promise.all([ensureBundle(), ensureBundle()]);
    expect(again).toEqual([dir, dir]);
  });

  it('keeps the current bundle, the five newest and any from the last week; drops stale half-made ones', () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bundles-'));
    const day = 24 * 3600 * 1000;
    const make = (name: string, ageDays: number) => {
      fs.mkdirSync(path.join(tmp!, name));
      const t = new Date(Date.now() - ageDays * day);
      fs.utimesSync(path.join(tmp!, name), t, t);
    };
    make('current', 30);
    for (let i = 1; i <= 7; i++) make(`old${i}`, 7 + i); // all older than a week
    make('recent', 3);
    make('.half-made-old', 2);
    make('.half-made-now', 0);
    pruneOldBundles(tmp, 'current');
    expect(fs.readdirSync(tmp).sort()).toEqual(['.half-made-now', 'current', 'old1', 'old2', 'old3', 'recent']);
  });

  it('builds through render worker threads (enough articles for the pool) the same as in-thread', async () => {
    p = createTempProject();
    writeSite(p, 'site');
    for (let i = 0; i < 60; i++) {
      p.write(
        `site/articles/n${i}.md`,
        article(
          { title: `N ${i}`, status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' },
          `Text ${i} with https://example.com/${i} and ~~gone~~.\n\n<details><summary>${i}</summary>x</details>\n`,
        ),
      );
    }
    const r = await runCli(['build'], {
      QUIRE_CONTENT_DIR: p.contentDir,
      QUIRE_DIST_DIR: p.distDir,
      QUIRE_STATE_DIR: p.stateDir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Built 60 articles \(60 live, 0 drafts\) .*60 rendered/);
    const body = JSON.parse(fs.readFileSync(path.join(p.distDir, 'site', 'articles', 'n7.json'), 'utf8')) as {
      html: string;
    };
    expect(body.html).toBe(
      '<p>Text 7 with <a href="https://example.com/7">https://example.com/7</a> and <del>gone</del>.</p>\n<details><summary>7</summary>x</details>',
    );
  });
});
