// The tests run on the Node that `npm install` brings along in a checkout (node-<os>-<arch>, the
// optional dependencies of the dev dependency scripts/node, linked first on every npm script's
// PATH): CI must not pass on another line (say the machine's own Node) without anyone noticing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSupportedNode } from '../../bin/node-check.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const nodePkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'scripts', 'node', 'package.json'), 'utf8')) as {
  optionalDependencies: Record<string, string>;
};
const platformPackage = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

describe('the Node line', () => {
  it('every platform package brings the same Node, one Quire supports, and only to a checkout', () => {
    expect(pkg.devDependencies['quire-node']).toBe('file:scripts/node');
    expect(JSON.stringify(pkg)).not.toMatch(/"node-(linux|win|darwin)-/); // never to a content repository that installs Quire
    const versions = new Set(
      Object.entries(nodePkg.optionalDependencies)
        .filter(([name]) => /^node-(linux|win|darwin)-/.test(name))
        .map(([, v]) => v),
    );
    expect(versions.size).toBe(1);
    const [version] = [...versions] as [string];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(isSupportedNode(version)).toBe(true);
    // engines says the same floor as bin/node-check.js
    expect(pkg.engines.node).toBe('>=22.12');
  });

  it.skipIf(!(platformPackage in nodePkg.optionalDependencies))(
    'the tests and the `node` that npm scripts run are that Node',
    () => {
      const brought = nodePkg.optionalDependencies[platformPackage]!;
      expect(process.versions.node, `tests run on Node ${process.versions.node}; npm install brings ${brought}`).toBe(
        brought,
      );
      const onPath = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      expect(onPath, `\`node\` on PATH is ${onPath}; npm install brings ${brought}`).toBe(brought);
    },
  );
});
