// The state dir holds drafts (the render cache's bodies, the followed checkout) and secrets: under
// the common umask 022, what Quire makes there must still be its user's only. The real CLI as a
// child process under that umask; the modes it leaves are read from the disk.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followCheckoutDir } from '../../src/config/state-layout.ts';
import { quireCommand, runProgram, startProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

/** `quire <args>` run by a shell that set umask 022 first (as a login shell usually has it). */
const quire = quireCommand([]);
const UNDER_UMASK_022 = ['-c', 'umask 022 && exec "$0" "$@"', quire.command, ...quire.args];

const projects: TempProject[] = [];
const folders: string[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

function projectWithADraft(opts: { git?: boolean } = {}): TempProject {
  const p = createTempProject(opts);
  projects.push(p);
  writeSite(p, 'one');
  p.write('one/articles/live.md', article({ title: 'Live', status: 'published', publishedAt: '2026-05-01' }));
  p.write(
    'one/articles/secret-plans.md',
    article({ title: 'Secret plans', status: 'draft' }, 'The unannounced merger.\n'),
  );
  return p;
}

const folderEnv = (p: TempProject) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
});

async function buildUnderUmask(p: TempProject): Promise<void> {
  const r = await runProgram('sh', [...UNDER_UMASK_022, 'build'], folderEnv(p));
  expect(r.code, r.stderr + r.stdout).toBe(0);
}

describe('the state dir under umask 022', () => {
  it('a build makes it 0700, and the render cache (draft bodies) with its -wal readable by its user only', async () => {
    const p = projectWithADraft();
    await buildUnderUmask(p);
    const cache = path.join(p.stateDir, 'cache');
    // The draft's body is in the cache's write-ahead log: the file this is about.
    expect(fs.readFileSync(path.join(cache, 'render.db-wal')).includes('The unannounced merger.')).toBe(true);
    expect(modeOf(p.stateDir)).toBe('700');
    expect(modeOf(cache)).toBe('700');
    for (const file of ['render.db', 'render.db-wal', 'render.db-shm', 'build-state.v8'])
      expect(modeOf(path.join(cache, file)), file).toBe('600');
  });

  it('closes a state dir and render cache an earlier version left open to others', async () => {
    const p = projectWithADraft();
    await buildUnderUmask(p);
    const cache = path.join(p.stateDir, 'cache');
    // As made before: folders 0755, files 0644.
    for (const dir of [p.stateDir, cache]) fs.chmodSync(dir, 0o755);
    for (const file of fs.readdirSync(cache)) fs.chmodSync(path.join(cache, file), 0o644);
    expect(modeOf(path.join(cache, 'render.db-wal'))).toBe('644');
    p.write(
      'one/articles/secret-plans.md',
      article({ title: 'Secret plans', status: 'draft' }, 'The merger, revised.\n'),
    );
    await buildUnderUmask(p);
    expect(modeOf(p.stateDir)).toBe('700');
    expect(modeOf(cache)).toBe('700');
    for (const file of ['render.db', 'render.db-wal', 'build-state.v8'])
      expect(modeOf(path.join(cache, file)), file).toBe('600');
  });

  it("start --follow keeps its checkout (every draft's source) in a folder of its user only", async () => {
    const p = projectWithADraft({ git: true });
    p.commit('first', '2026-05-01T10:00:00Z');
    const remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
    folders.push(remote);
    execFileSync('git', ['clone', '-q', '--bare', p.root, remote]);
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-state-'));
    folders.push(stateDir);
    fs.rmdirSync(stateDir); // made by quire itself
    const server = await startProgram(
      'sh',
      [...UNDER_UMASK_022, 'start', '--follow', remote, '--interval', '3600'],
      { ...folderEnv(p), QUIRE_STATE_DIR: stateDir, PORT: '0' },
      /Following .*\n/,
      60_000,
    );
    try {
      const checkout = followCheckoutDir(stateDir);
      expect(fs.existsSync(path.join(checkout, 'content', 'one', 'articles', 'secret-plans.md'))).toBe(true);
      expect(modeOf(stateDir)).toBe('700');
      expect(modeOf(checkout)).toBe('700');
      expect(modeOf(path.join(stateDir, 'cache', 'render.db-wal'))).toBe('600');
    } finally {
      await server.stop();
    }
  }, 90_000);
});
