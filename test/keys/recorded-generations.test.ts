// A rotation is kept in the state store as well as in keys.json, the store first: a keys.json lost
// or restored from an older copy while QUIRE_SECRET stays cannot bring a key rotated away back,
// even when no build recorded the rotation. The real CLI in child processes, on the test store
// (SQLite in the state dir; PostgreSQL with QUIRE_TEST_STORE=postgres).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { onPostgres, openTestStore } from '../helpers/test-store.ts';
import { runCli, startCli, type CliResult } from '../helpers/run-cli.ts';
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
const keyAt = (generation: number) => createKeyring(SECRET, { generationOf: () => generation }).keyFor('one');
const keyOf = async (): Promise<CliResult & { key: string | null }> => {
  const r = await runCli(['keys', '--site', 'one', '--json'], env());
  return { ...r, key: r.code === 0 ? (JSON.parse(r.stdout) as { key: string }[])[0]!.key : null };
};
const recorded = async () => {
  const store = openTestStore(p.stateDir, SECRET);
  try {
    return await store.keyGenerations.all();
  } finally {
    await store.close();
  }
};

function project(): void {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
}

/** `quire start`: refused (its exit code and output), or serving (its API's URL; stop it). */
async function start(): Promise<
  { refused: { code: number; output: string } } | { url: string; stop: () => Promise<void> }
> {
  try {
    const server = await startCli(['start'], env(), /Quire Content API on (\S+\/v1)\s/);
    return { url: server.match[1]!, stop: server.stop };
  } catch (e) {
    const exited = /^exited with (\d+) before ready:\n([\s\S]*)$/.exec((e as Error).message);
    if (!exited) throw e;
    return { refused: { code: Number(exited[1]), output: exited[2]! } };
  }
}

const statusWith = async (url: string, key: string) =>
  (await fetch(`${url}/articles`, { headers: { authorization: `Bearer ${key}` } })).status;

describe('keys.json lost after a rotation, no build since', { timeout: 90_000 }, () => {
  it('start and keys are refused naming keys.json and the store; `keys restore` writes it back, and the key rotated away answers 401', async () => {
    project();
    expect((await runCli(['build'], env())).code).toBe(0); // a build before the rotation records nothing of it
    const old = (await keyOf()).key!;
    expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
    const current = (await keyOf()).key!;
    expect(current).not.toBe(old);
    fs.rmSync(keysFile());

    const started = await start();
    if ('url' in started) {
      const status = await statusWith(started.url, old);
      await started.stop();
      expect.fail(`quire start served without keys.json; the key rotated away answered ${status}`);
    }
    expect(started.refused.code).toBe(1);
    expect(started.refused.output).toContain(`${keysFile()} is missing, but `);
    expect(started.refused.output).toMatch(
      onPostgres
        ? /the PostgreSQL state at [^\n]+ recorded key rotations/
        : new RegExp(`the state store ${path.join(p.stateDir, 'quire.db')} recorded key rotations`),
    );
    expect(started.refused.output).toContain('the key of site "one" is at generation 2');
    expect(started.refused.output).toContain('quire keys restore');
    const keys = await keyOf();
    expect(keys.code).toBe(1);
    expect(keys.stdout).not.toContain(old);
    expect(fs.existsSync(keysFile())).toBe(false); // nothing was written in its place

    expect((await runCli(['keys', 'restore', 'one'], env())).code).toBe(2); // takes nothing else
    const restored = await runCli(['keys', 'restore'], env());
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('the key of site "one": generation 2 (keys.json had none)');
    expect(JSON.parse(fs.readFileSync(keysFile(), 'utf8'))).toEqual({ one: 2 });
    const again = await start();
    if (!('url' in again)) throw new Error(`refused after keys restore:\n${again.refused.output}`);
    try {
      expect(await statusWith(again.url, old)).toBe(401);
      expect(await statusWith(again.url, current)).toBe(200);
    } finally {
      await again.stop();
    }
  });

  it('a preview key rotated away stays rotated away too', async () => {
    project();
    expect((await runCli(['keys', 'rotate', 'one', '--preview'], env())).code).toBe(0);
    expect(await recorded()).toEqual({ 'one.preview': 2 });
    fs.rmSync(keysFile());
    const keys = await keyOf();
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain('the preview key of site "one" is at generation 2');
  });
});

describe('keys.json and the state store disagree', { timeout: 90_000 }, () => {
  it('an older keys.json (behind the store) is refused; one ahead raises the store', async () => {
    project();
    expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
    const older = fs.readFileSync(keysFile());
    expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
    expect(await recorded()).toEqual({ one: 3 });
    fs.writeFileSync(keysFile(), older);
    const behind = await keyOf();
    expect(behind.code).toBe(1);
    expect(behind.stdout).toBe('');
    expect(behind.stderr).toContain(`${keysFile()} is behind `);
    expect(behind.stderr).toContain('the key of site "one" is at generation 2 here and 3 there');

    // A generation written by hand above the store's (what a message may say to do) is taken.
    fs.writeFileSync(keysFile(), '{"one": 5}\n');
    expect((await keyOf()).key).toBe(keyAt(5));
    expect(await recorded()).toEqual({ one: 5 });
    fs.rmSync(keysFile());
    expect((await keyOf()).stderr).toContain('the key of site "one" is at generation 5');
  });

  it("an existing keys.json and a store without generations (an upgrade): the store takes keys.json's", async () => {
    project();
    fs.mkdirSync(p.stateDir, { recursive: true });
    fs.writeFileSync(keysFile(), '{"one": 3, "one.preview": 2}\n', { mode: 0o600 });
    expect(await recorded()).toEqual({});
    expect((await keyOf()).key).toBe(keyAt(3));
    expect(await recorded()).toEqual({ one: 3, 'one.preview': 2 });
    fs.rmSync(keysFile());
    expect((await keyOf()).code).toBe(1);
  });

  it('keys of sites that are not here (another project sharing the store) are not compared', async () => {
    project();
    const store = openTestStore(p.stateDir, SECRET);
    try {
      await store.keyGenerations.rotate('elsewhere', 3);
    } finally {
      await store.close();
    }
    const keys = await keyOf();
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.key).toBe(keyAt(1));
    const restored = await runCli(['keys', 'restore'], env());
    expect(restored.stdout).toMatch(/^Nothing to restore: /);
    expect(JSON.parse(fs.readFileSync(keysFile(), 'utf8'))).toEqual({});
  });
});

describe('a state store that cannot be read', { timeout: 90_000 }, () => {
  it.skipIf(onPostgres)('keys.json is used unchecked, and said so; no key is rotated', async () => {
    project();
    expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
    const db = path.join(p.stateDir, 'quire.db');
    for (const f of [`${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true });
    fs.writeFileSync(db, 'not a database, not even close to one'.repeat(200));
    const keys = await keyOf();
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.key).toBe(keyAt(2));
    expect(keys.stderr).toMatch(/are not checked against the state store, which cannot be read/);
    const rotate = await runCli(['keys', 'rotate', 'one'], env());
    expect(rotate.code).toBe(1);
    expect(rotate.stderr).toMatch(/no key was rotated: a rotation is recorded in the state store before/);
    expect(JSON.parse(fs.readFileSync(keysFile(), 'utf8'))).toEqual({ one: 2 });
    const restore = await runCli(['keys', 'restore'], env());
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/Nothing was restored/);
  });
});
