// A state file, the build state or the manifest that is there but cannot be read is an error
// naming it, never "none": only a missing file (ENOENT) is. Root ignores permission bits (CI
// runs as root), so the faults here are ones root meets too: a folder where the file should be
// (EISDIR), a symbolic link that points at itself (ELOOP), bytes that are not the file's format;
// chmod 000 is used only where the tests do not run as root.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/export/export-files.ts';
import { loadBuildState } from '../../src/compile/build-state.ts';
import { ProblemError } from '../../src/problems/problem.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const env = () => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_SECRET: 'a-server-secret-of-at-least-32-characters',
});

async function built(): Promise<void> {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'Before', status: 'published', publishedAt: '2026-01-01' }));
  const r = await runCli(['build'], env());
  expect(r.code, r.stderr).toBe(0);
}

const manifestFile = () => path.join(p.distDir, 'manifest.json');
const servedTitle = () =>
  (JSON.parse(fs.readFileSync(path.join(p.distDir, 'one', 'articles', 'a.json'), 'utf8')) as { title: string }).title;

describe('dist/manifest.json that cannot be read', { timeout: 60_000 }, () => {
  it('is no build only when it is missing', () => {
    p = createTempProject();
    expect(readManifest(p.distDir)).toBeNull();
    fs.mkdirSync(p.distDir);
    fs.writeFileSync(manifestFile(), JSON.stringify({ format: 1, buildId: 'x', sites: {} }));
    expect(readManifest(p.distDir)).toBeNull(); // another version's output: built anew
  });

  it('a folder in its place (EISDIR): keys and build refuse, naming it', async () => {
    await built();
    fs.rmSync(manifestFile());
    fs.mkdirSync(manifestFile());
    expect(() => readManifest(p.distDir)).toThrow(ProblemError);
    const keys = await runCli(['keys'], env());
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain(`${manifestFile()} cannot be read (EISDIR)`);
    expect(keys.stdout).not.toMatch(/pk_one\./);
    p.write('one/articles/a.md', article({ title: 'After', status: 'published', publishedAt: '2026-01-01' }));
    const build = await runCli(['build'], env());
    expect(build.code).toBe(1);
    expect(build.stderr).toContain(`${manifestFile()} cannot be read (EISDIR)`);
    expect(servedTitle()).toBe('Before');
  });

  it('damaged (not JSON, or JSON that is no manifest): refused, not taken for "no build"', async () => {
    await built();
    for (const [bytes, message] of [
      ['{"format":2,"buil', 'is not JSON'],
      ['{"hello":"world"}', 'is not a build manifest'],
    ] as const) {
      fs.writeFileSync(manifestFile(), bytes);
      try {
        readManifest(p.distDir);
        expect.unreachable('a damaged manifest was read');
      } catch (err) {
        expect(err).toBeInstanceOf(ProblemError);
        expect((err as ProblemError).code).toBe('MANIFEST_UNREADABLE');
        expect((err as Error).message).toContain(`${manifestFile()} ${message}`);
      }
      // The key generations the manifest records are what catches a reset keys.json: a
      // damaged one must not let `keys` (or a server) start as if nothing were recorded.
      const keys = await runCli(['keys'], env());
      expect(keys.code).toBe(1);
      expect(keys.stderr).toContain(`${manifestFile()} ${message}`);
    }
  });
});

describe('the build state that cannot be read', { timeout: 60_000 }, () => {
  const stateFile = () => path.join(p.stateDir, 'cache', 'build-state.v8');

  it('a folder in its place (EISDIR): the build fails naming it, dist/ untouched', async () => {
    await built();
    fs.rmSync(stateFile());
    fs.mkdirSync(stateFile());
    expect(() => loadBuildState(p.stateDir)).toThrow(/cannot be read \(EISDIR\)/);
    p.write('one/articles/a.md', article({ title: 'After', status: 'published', publishedAt: '2026-01-01' }));
    const r = await runCli(['build'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${stateFile()} cannot be read (EISDIR)`);
    expect(servedTitle()).toBe('Before');
  });

  it('missing or damaged: a full build (it is a cache), with the same output', async () => {
    await built();
    const before = fs.readFileSync(path.join(p.distDir, 'one', 'articles', 'a.json'));
    fs.writeFileSync(stateFile(), 'not v8');
    expect(loadBuildState(p.stateDir).sources.size).toBe(0);
    fs.rmSync(path.join(p.distDir), { recursive: true });
    expect((await runCli(['build'], env())).code).toBe(0);
    expect(fs.readFileSync(path.join(p.distDir, 'one', 'articles', 'a.json'))).toEqual(before);
  });
});

describe('quire.db that cannot be looked at', { timeout: 60_000 }, () => {
  it('a link to itself (ELOOP) is reported as unreadable, not as an empty store', async () => {
    p = createTempProject();
    fs.mkdirSync(p.stateDir);
    const db = path.join(p.stateDir, 'quire.db');
    fs.symlinkSync('quire.db', db);
    const r = await runCli(['webhook', 'show'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${db} cannot be read as Quire's state store`);
    expect(r.stderr).toContain('ELOOP');
    expect(r.stderr).not.toMatch(/is empty \(0 bytes\)/);
  });
});

describe('a content folder that cannot be read', { timeout: 60_000 }, () => {
  // Root reads any folder whatever its mode: this fault needs an ordinary user.
  it.skipIf(process.geteuid?.() === 0)('is a problem of the build, not a site without articles', async () => {
    await built();
    const site = path.join(p.contentDir, 'one');
    fs.chmodSync(site, 0o000);
    try {
      const r = await runCli(['build'], env());
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/CONTENT_UNREADABLE|CONTENT_NO_SITES/);
      expect(servedTitle()).toBe('Before');
    } finally {
      fs.chmodSync(site, 0o755);
    }
  });
});
