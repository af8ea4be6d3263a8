// keys.json is what makes a rotation stick. Damaged, lost or reset, it must be refused with the
// file named, never read as "no rotations" (which makes keys rotated away valid again).
// Real files, the real CLI in child processes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyStateError } from '../../src/keys/key-generations.ts';
import { openCheckedKeyGenerations } from '../../src/keys/recorded-generations.ts';
import { openStateStore } from '../../src/store/state-store.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const SECRET = 'a-server-secret-that-stays-the-same-0123456789';
const env = () => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_SECRET: SECRET,
  PORT: '0',
});
const keysFile = () => path.join(p.stateDir, 'keys.json');
const keyOf = async () => {
  const r = await runCli(['keys', '--site', 'one', '--json'], env());
  return { ...r, key: r.code === 0 ? (JSON.parse(r.stdout) as { key: string }[])[0]!.key : null };
};

/** A site whose key was rotated once: returns the key rotated away and the current one. */
async function rotatedOnce(): Promise<{ old: string; current: string }> {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
  const old = (await keyOf()).key!;
  expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
  const current = (await keyOf()).key!;
  expect(current).not.toBe(old);
  return { old, current };
}

describe('keys.json', { timeout: 60_000 }, () => {
  it('damaged: keys and start fail naming it, and the key rotated away is never printed', async () => {
    const { old } = await rotatedOnce();
    for (const damage of ['{"one": 2', '', '{"one": "two"}', '[2]', '\u0000\u0001garbage']) {
      fs.writeFileSync(keysFile(), damage);
      const r = await keyOf();
      expect(r.code, damage).toBe(1);
      expect(r.stdout).not.toContain(old);
      expect(r.stderr).toContain(`${keysFile()} cannot be used`);
      expect(r.stderr).toMatch(/keys rotated away would be valid again/);
    }
    const start = await runCli(['start'], env());
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(`${keysFile()} cannot be used`);
    expect(start.stdout).not.toMatch(/Quire Content API on/); // no port was opened
  });

  it('lost (or reset) with the state store while QUIRE_SECRET stays: refused once a build recorded the rotation; a new generation is accepted', async () => {
    const { old, current } = await rotatedOnce();
    expect((await runCli(['build'], env())).code).toBe(0); // records generation 2 in dist/manifest.json
    // The store's copy gone too (a store started over): the build's record is what is left.
    const storeLost = () =>
      ['quire.db', 'quire.db-wal', 'quire.db-shm'].forEach((f) => fs.rmSync(path.join(p.stateDir, f), { force: true }));
    for (const loss of [() => fs.rmSync(keysFile()), () => fs.writeFileSync(keysFile(), '{}\n')]) {
      loss();
      storeLost();
      const r = await keyOf();
      expect(r.code).toBe(1);
      expect(r.stdout).not.toContain(old);
      expect(r.stderr).toContain(
        `${keysFile()} is missing or was reset: ${path.join(p.distDir, 'manifest.json')} was built when site "one" had key generation 2`,
      );
      expect(r.stderr).toContain('write {"one":3}');
      const start = await runCli(['start'], env());
      expect(start.code).toBe(1);
      expect(start.stderr).toMatch(/is missing or was reset/);
    }
    fs.writeFileSync(keysFile(), '{"one": 3}\n'); // what the message says to do
    const after = await keyOf();
    expect(after.code, after.stderr).toBe(0);
    expect([old, current]).not.toContain(after.key);
  });

  it('in a running server: a file that stops reading keeps the generations held and is reported', async () => {
    p = createTempProject();
    const store = openStateStore(p.stateDir, SECRET);
    try {
      const generations = await openCheckedKeyGenerations(p.stateDir, { records: store.keyGenerations }, [
        'one',
        'two',
      ]);
      expect(await generations.rotate('one')).toBe(2);
      const reported: KeyStateError[] = [];
      for (const damage of [() => fs.writeFileSync(keysFile(), 'not json'), () => fs.rmSync(keysFile())]) {
        damage();
        expect(generations.refresh((e) => reported.push(e))).toBe(false);
        expect(generations.generationOf('one')).toBe(2);
      }
      expect(reported.map((e) => e.message)).toEqual([
        expect.stringContaining(`${keysFile()} cannot be used (not JSON`),
        expect.stringContaining(`${keysFile()} was removed`),
      ]);
      // Rotating while it is gone does not start over from 1.
      expect(await generations.rotate('two')).toBe(2);
      expect(JSON.parse(fs.readFileSync(keysFile(), 'utf8'))).toEqual({ one: 2, two: 2 });
    } finally {
      await store.close();
    }
  });
});
