// Preview keys (pv_<site>.<signature>): a second key per site with its own generation. Real
// keys.json files and the real CLI in child processes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/keys/api-keys.ts';
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
});
const sites = { has: (id: string) => id === 'one' || id === 'two' };

function twoSites(): void {
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
}

async function keys(): Promise<{ site: string; key: string; previewKey: string }[]> {
  const r = await runCli(['keys', '--json'], env());
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the keyring', () => {
  it('tells a preview key from a public key of the same site, and verify() takes public keys only', () => {
    p = createTempProject();
    const keyring = createKeyring(SECRET, { generationOf: () => 1 });
    const pk = keyring.keyFor('one');
    const pv = keyring.previewKeyFor('one');
    expect(pv).toMatch(/^pv_one\.[A-Za-z0-9_-]{43}$/);
    expect(pv.slice(3)).not.toBe(pk.slice(3)); // not the public key with another prefix
    expect(keyring.grant(pk, sites)).toEqual({ siteId: 'one', scope: 'public' });
    expect(keyring.grant(pv, sites)).toEqual({ siteId: 'one', scope: 'preview' });
    expect(keyring.verify(pk, sites)).toBe('one');
    expect(keyring.verify(pv, sites)).toBeNull();
    // The public key's signature under the preview prefix, and the other way round, are forgeries.
    expect(keyring.grant(`pv_${pk.slice(3)}`, sites)).toBeNull();
    expect(keyring.grant(`pk_${pv.slice(3)}`, sites)).toBeNull();
    // Another site's preview key with this site's name is a forgery too.
    expect(keyring.grant(`pv_one.${keyring.previewKeyFor('two').split('.')[1]}`, sites)).toBeNull();
    expect(keyring.grant(keyring.previewKeyFor('two').replace('pv_two', 'pv_three'), sites)).toBeNull();
  });
});

describe('quire keys', () => {
  it('prints both keys (JSON and table), and rotating one leaves the other working', async () => {
    twoSites();
    const before = await keys();
    expect(before.map((k) => Object.keys(k))).toEqual([
      ['site', 'key', 'previewKey'],
      ['site', 'key', 'previewKey'],
    ]);
    for (const k of before) expect(k.previewKey).toMatch(new RegExp(`^pv_${k.site}\\.[A-Za-z0-9_-]{43}$`));
    const table = await runCli(['keys'], env());
    expect(table.stdout.trim().split('\n')).toEqual(before.map((k) => `${k.site}\t${k.key}\t${k.previewKey}`));

    const rotated = await runCli(['keys', 'rotate', 'one', '--preview'], env());
    expect(rotated.code, rotated.stderr).toBe(0);
    const afterPreview = await keys();
    expect(afterPreview[0]!.key).toBe(before[0]!.key);
    expect(afterPreview[0]!.previewKey).not.toBe(before[0]!.previewKey);
    expect(rotated.stdout).toContain(afterPreview[0]!.previewKey);
    expect(afterPreview[1]).toEqual(before[1]);
    expect(JSON.parse(fs.readFileSync(path.join(p.stateDir, 'keys.json'), 'utf8'))).toEqual({ 'one.preview': 2 });

    expect((await runCli(['keys', 'rotate', 'one'], env())).code).toBe(0);
    const afterPublic = await keys();
    expect(afterPublic[0]!.previewKey).toBe(afterPreview[0]!.previewKey);
    expect(afterPublic[0]!.key).not.toBe(before[0]!.key);
  });

  it('--preview without rotate is a usage error that changes nothing', async () => {
    twoSites();
    const r = await runCli(['keys', '--preview'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--preview goes with rotate');
    expect(fs.existsSync(path.join(p.stateDir, 'keys.json'))).toBe(false);
  });

  it('a keys.json reset with the state store after a build recorded a preview rotation is refused, naming the preview key', async () => {
    twoSites();
    const old = (await keys())[0]!.previewKey;
    expect((await runCli(['keys', 'rotate', 'one', '--preview'], env())).code).toBe(0);
    expect((await runCli(['build'], env())).code).toBe(0);
    fs.writeFileSync(path.join(p.stateDir, 'keys.json'), '{}\n');
    // The store's copy gone too: the build's record is what is left.
    for (const f of ['quire.db', 'quire.db-wal', 'quire.db-shm']) fs.rmSync(path.join(p.stateDir, f), { force: true });
    const r = await runCli(['keys', '--json'], env());
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(old);
    expect(r.stderr).toContain('site "one" had preview key generation 2');
    expect(r.stderr).toContain('write {"one.preview":3}');
  });

  it('refuses a keys.json entry that is neither a site id nor a site preview generation', async () => {
    twoSites();
    fs.mkdirSync(p.stateDir, { recursive: true });
    fs.writeFileSync(path.join(p.stateDir, 'keys.json'), '{"one.draft": 2}\n');
    const r = await runCli(['keys'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"one.draft" is not a site id');
  });
});
