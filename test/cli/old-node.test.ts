// On a Node older than Quire supports (many machines and CI images have Node 20): npm scripts run
// on the Node 24 that `npm install` brought along (node-<os>-<arch>, linked first on their PATH),
// the command run directly starts again on it, and without it says in one line what it needs.
// The old Node is the machine's own when it is old, or QUIRE_TEST_OLD_NODE (.ci/run provides
// one from the npm registry when the machine's Node is new).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSupportedNode } from '../../bin/node-check.js';
import { article, createTempProject, projectFolders, writeSite } from '../helpers/temp-content.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OWN_BIN = path.join(ROOT, 'node_modules', '.bin');

/** A `node` older than 22.12: QUIRE_TEST_OLD_NODE, or the first on PATH outside this checkout. */
function findOldNode(): string | null {
  const candidates = [
    process.env.QUIRE_TEST_OLD_NODE ?? '',
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((d) => d && path.resolve(d) !== OWN_BIN)
      .map((d) => path.join(d, 'node')),
  ];
  for (const candidate of candidates) {
    if (!candidate || !fs.existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
    if (version && !isSupportedNode(version)) return candidate;
  }
  return null;
}

const oldNode = findOldNode();
/** PATH as a machine with `oldNode` has it: its folder first, nothing of this checkout on it. */
const oldPath = oldNode
  ? [
      path.dirname(oldNode),
      ...(process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((d) => path.resolve(d) !== OWN_BIN && !d.includes(`${path.sep}node_modules${path.sep}`)),
    ].join(path.delimiter)
  : '';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!oldNode)(`on an old Node (${oldNode ?? 'none found: set QUIRE_TEST_OLD_NODE'})`, () => {
  const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
    spawnSync(command, args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, PATH: oldPath, ...env },
      timeout: 120_000,
    });

  it('is old indeed', () => {
    expect(execFileSync(oldNode!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).not.toMatch(
      /^(2[2-9]|[3-9]\d)\./,
    );
  });

  it('npm scripts run on the Node 24 npm install brought along', () => {
    const r = run('npm', ['run', '-s', 'quire', '--', '--version'], ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const node = run('npm', ['exec', '--', 'node', '-p', 'process.versions.node'], ROOT);
    expect(node.stdout.trim()).toMatch(/^24\./);
  });

  it('`node bin/quire.js build` starts again on that Node 24 and builds', () => {
    const p = createTempProject({ git: true });
    dirs.push(p.root);
    writeSite(p, 'site');
    p.write('site/articles/hello.md', article({ title: 'Hello', status: 'published' }));
    const r = run(oldNode!, [path.join(ROOT, 'bin', 'quire.js'), 'build'], p.root, projectFolders(p));
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(p.distDir, 'site', 'articles', 'hello.json'))).toBe(true);
  });

  it('without that Node, says in one line which Node it needs and how to get it, and nothing else', () => {
    // The command as a copy that has no node_modules beside it.
    const lone = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-lone-'));
    dirs.push(lone);
    for (const file of ['quire.js', 'node-check.js'])
      fs.copyFileSync(path.join(ROOT, 'bin', file), path.join(lone, file));
    fs.writeFileSync(path.join(lone, 'package.json'), '{"type":"module"}');
    for (const args of [['start'], ['build'], ['--version'], ['publish', '--dry-run']]) {
      const r = run(oldNode!, [path.join(lone, 'quire.js'), ...args], lone);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^quire: Quire needs Node\.js 22\.12\.0 or newer, and this is Node \d+\.\d+\.\d+\. Install Node 24 .*npm start in a Quire checkout/,
      );
    }
  });
});
