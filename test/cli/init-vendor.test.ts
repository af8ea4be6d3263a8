// `quire init` in a repository that installed Quire from a tarball outside it (`npm install
// /path/to/quire-0.1.0.tgz`, which records `file:../…`): the tarball is kept in vendor/, so a
// fresh clone's `npm ci` installs it. A small stand-in package keeps npm fast and offline here;
// test/cli/installed-package.test.ts does the same with Quire's own tarball and runs the workflow.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleEnv } from '../helpers/example-install.ts';
import { runCli } from '../helpers/run-cli.ts';

let tmp: string | undefined;
afterEach(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

const npm = (cwd: string, ...args: string[]) => npmWith({}, cwd, ...args);
const npmWith = (env: Record<string, string>, cwd: string, ...args: string[]) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--offline'], {
    cwd,
    env: exampleEnv(env),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
const env = (root: string) => ({ QUIRE_STATE_DIR: '', QUIRE_CONTENT_DIR: '', QUIRE_DIST_DIR: '', HOME: root });
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** A repository that `npm install`ed a package named quire from a tarball in a folder beside it. */
function installedFromOutside(): { repo: string; tarball: string } {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-vendor-'));
  const pkg = path.join(tmp, 'pkg');
  fs.mkdirSync(pkg);
  fs.writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'quire', version: '0.1.0', bin: { 'quire-stand-in': 'bin.js' } }),
  );
  fs.writeFileSync(path.join(pkg, 'bin.js'), '#!/usr/bin/env node\nconsole.log("stand-in");\n');
  const packs = path.join(tmp, 'packs');
  fs.mkdirSync(packs);
  npm(pkg, 'pack', '--silent', '--pack-destination', packs);
  const repo = path.join(tmp, 'repo');
  fs.mkdirSync(repo);
  git(repo, 'init', '-q');
  npm(repo, 'init', '-y');
  const tarball = path.join(packs, 'quire-0.1.0.tgz');
  npm(repo, 'install', tarball);
  expect(readJson(path.join(repo, 'package.json')).dependencies.quire).toBe('file:../packs/quire-0.1.0.tgz');
  return { repo, tarball };
}

describe('quire init with Quire installed from a tarball outside the repository', () => {
  it('keeps the tarball in vendor/ and points package.json and the lock at it: a fresh clone installs with npm ci', async () => {
    const { repo, tarball } = installedFromOutside();
    const lockBefore = readJson(path.join(repo, 'package-lock.json'));
    const r = await runCli(['init'], env(repo), repo);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'copied ../packs/quire-0.1.0.tgz to vendor/quire-0.1.0.tgz: package.json and package-lock.json now install Quire from file:vendor/quire-0.1.0.tgz',
    );

    expect(fs.readFileSync(path.join(repo, 'vendor', 'quire-0.1.0.tgz')).equals(fs.readFileSync(tarball))).toBe(true);
    expect(readJson(path.join(repo, 'package.json')).dependencies).toEqual({ quire: 'file:vendor/quire-0.1.0.tgz' });
    const lock = readJson(path.join(repo, 'package-lock.json'));
    expect(lock.packages[''].dependencies).toEqual({ quire: 'file:vendor/quire-0.1.0.tgz' });
    expect(lock.packages['node_modules/quire']).toEqual({
      ...lockBefore.packages['node_modules/quire'],
      resolved: 'file:vendor/quire-0.1.0.tgz',
    });
    // As npm writes them: two-space indent, a final newline.
    expect(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8')).toBe(`${JSON.stringify(lock, null, 2)}\n`);

    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'content repository');
    // An empty folder elsewhere: `../packs` is not there, as in CI.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-vendor-clone-'));
    try {
      const clone = path.join(elsewhere, 'clone');
      git(elsewhere, 'clone', '-q', repo, clone);
      // An empty npm cache, as on a CI machine: npm's cache here holds the installed tarball by its
      // integrity and would install it even with the file gone.
      npmWith({ npm_config_cache: path.join(elsewhere, 'npm-cache') }, clone, 'ci');
      expect(execFileSync(path.join(clone, 'node_modules', '.bin', 'quire-stand-in'), { encoding: 'utf8' })).toBe(
        'stand-in\n',
      );
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('says so, and changes neither file, when the tarball is gone or is another one', async () => {
    const { repo, tarball } = installedFromOutside();
    const files = () => ['package.json', 'package-lock.json'].map((f) => fs.readFileSync(path.join(repo, f), 'utf8'));
    const before = files();
    fs.writeFileSync(tarball, 'not the tarball that was installed');
    const r = await runCli(['init'], env(repo), repo);
    expect(r.code).toBe(0); // the repository is written; the warning says what CI would meet
    expect(r.stderr).toMatch(
      /warning: \.\.\/packs\/quire-0\.1\.0\.tgz is not the tarball that was installed .*npm ci would fail\s+\[INSTALL_NOT_CLONABLE\]/,
    );
    expect(files()).toEqual(before);
    expect(fs.existsSync(path.join(repo, 'vendor'))).toBe(false);

    fs.rmSync(path.join(repo, 'content'), { recursive: true });
    fs.rmSync(path.join(repo, '.github'), { recursive: true });
    fs.rmSync(tarball);
    const gone = await runCli(['init'], env(repo), repo);
    expect(gone.stderr).toMatch(
      /warning: \.\.\/packs\/quire-0\.1\.0\.tgz, the tarball package\.json installs quire from, cannot be read .*\[INSTALL_NOT_CLONABLE\]/,
    );
    expect(files()).toEqual(before);
  });

  it("leaves a repository that installs from vendor/ already as it is (README's way)", async () => {
    const { repo, tarball } = installedFromOutside();
    fs.mkdirSync(path.join(repo, 'vendor'));
    fs.copyFileSync(tarball, path.join(repo, 'vendor', 'quire-0.1.0.tgz'));
    npm(repo, 'install', './vendor/quire-0.1.0.tgz');
    const pkg = fs.readFileSync(path.join(repo, 'package.json'), 'utf8');
    expect(JSON.parse(pkg).dependencies.quire).toBe('file:vendor/quire-0.1.0.tgz');
    const r = await runCli(['init'], env(repo), repo);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('copied');
    expect(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).toBe(pkg);
  });
});
