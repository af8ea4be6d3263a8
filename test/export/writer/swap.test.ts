// dist/ is swapped in by two renames (dist/ away, the new tree in). A build killed between them
// leaves no dist/: the next start puts the last complete tree back, so a start whose build fails
// on content still has a tree to serve, with that build's drafts (they are in its preview tree,
// outside dist/). And what builds keep beside dist/ is ignored by git.
// Real CLI processes, a real git repository, a real SIGKILL.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, startCli } from '../../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const env = (extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  ...extra,
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !condition(); i++) await sleep(50);
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

describe('swapping dist/', { timeout: 90_000 }, () => {
  it('a build SIGKILLed between its two renames: the next start restores dist/ and serves it despite a content error', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'First title', status: 'published', publishedAt: '2026-01-01' }));
    expect((await runCli(['build'], env())).code).toBe(0);

    // The second build stops between the renames. QUIRE_TEST_SWAP_PAUSE_FILE is a test-only hook:
    // the window is two system calls wide, and nothing else can hit it reliably.
    p.write('one/articles/a.md', article({ title: 'Second title', status: 'published', publishedAt: '2026-01-01' }));
    const pause = path.join(p.root, 'paused');
    const build = spawnCli(['build'], env({ QUIRE_TEST_SWAP_PAUSE_FILE: pause }));
    await until(() => fs.existsSync(pause), 'the build to reach its swap');
    build.kill();
    await build.result;
    expect(fs.existsSync(p.distDir)).toBe(false); // killed with dist/ renamed away

    // Now the content is broken, so the start's build fails: it must still serve a tree.
    p.write('one/articles/broken.md', '---\ntitle: [unclosed\n---\n');
    const server = await startCli(['start'], env({ PORT: '0' }), /curl -H "Authorization: Bearer (\S+)" (\S+)\n/);
    try {
      expect(server.output()).toMatch(
        /dist\/ was missing \(a build was stopped while swapping it in\): restored it from .*\.dist\.work/,
      );
      expect(server.output()).toMatch(/Serving the last good build/);
      const [, key, url] = server.match;
      const res = await fetch(`${url}/a`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { title: string }).title).toBe('First title'); // what was served before the kill
    } finally {
      await server.stop();
    }
  });

  it("a build SIGKILLed between its two renames: the restored dist/ is served with its own drafts, not the killed build's", async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'First title', status: 'published', publishedAt: '2026-01-01' }));
    p.write('one/articles/plan.md', article({ title: 'Plan' }, 'First draft words.\n'));
    expect((await runCli(['build'], env())).code).toBe(0);

    // The killed build had put its drafts in place (they go first), then stopped mid-swap.
    p.write('one/articles/a.md', article({ title: 'Second title', status: 'published', publishedAt: '2026-01-01' }));
    p.write('one/articles/plan.md', article({ title: 'Plan' }, 'Second draft words.\n'));
    const pause = path.join(p.root, 'paused');
    const build = spawnCli(['build'], env({ QUIRE_TEST_SWAP_PAUSE_FILE: pause }));
    await until(() => fs.existsSync(pause), 'the build to reach its swap');
    build.kill();
    await build.result;
    expect(fs.existsSync(p.distDir)).toBe(false);
    expect(fs.readdirSync(path.join(p.stateDir, 'preview')).filter((n) => !n.startsWith('.'))).toHaveLength(2);

    p.write('one/articles/broken.md', '---\ntitle: [unclosed\n---\n');
    const server = await startCli(['start'], env({ PORT: '0' }), /curl -H "Authorization: Bearer (\S+)" (\S+)\n/);
    try {
      expect(server.output()).toMatch(/Serving the last good build/);
      const [, key, url] = server.match;
      const previewKey = (JSON.parse((await runCli(['keys', '--json'], env())).stdout) as { previewKey: string }[])[0]!
        .previewKey;
      expect(
        ((await (await fetch(`${url}/a`, { headers: { authorization: `Bearer ${key}` } })).json()) as { title: string })
          .title,
      ).toBe('First title');
      const draft = await fetch(`${url}/plan`, { headers: { authorization: `Bearer ${previewKey}` } });
      expect(draft.status).toBe(200);
      const { html, status } = (await draft.json()) as { html: string; status: string };
      expect(status).toBe('draft');
      expect(html).toContain('First draft words.');
    } finally {
      await server.stop();
    }
  });

  it('what builds keep beside dist/ (the new tree, the spare) does not show in git status', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
    fs.writeFileSync(path.join(p.root, '.gitignore'), 'dist/\n.quire/\n'); // what a content repository ignores
    p.commit('content', '2026-01-01T00:00:00Z');
    for (const title of ['A', 'A, edited', 'A, edited again']) {
      p.write('one/articles/a.md', article({ title, status: 'published', publishedAt: '2026-01-01' }));
      p.commit(title, '2026-01-02T00:00:00Z');
      const r = await runCli(['build'], env());
      expect(r.code, r.stderr).toBe(0);
    }
    expect(
      execFileSync('git', ['-C', p.root, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' }),
    ).toBe('');
    expect(fs.existsSync(path.join(p.root, '.dist.work', 'spare'))).toBe(true); // there, and ignored
  });
});
