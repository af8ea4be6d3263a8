// The tests run on the Node major that .ci/use-node.sh installs and puts first on PATH: CI must not
// pass on another line (say the machine's own Node) without anyone noticing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function pinnedNodeVersion(): string {
  const script = fs.readFileSync(path.join(ROOT, '.ci', 'use-node.sh'), 'utf8');
  const match = /^NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(script);
  if (!match) throw new Error('.ci/use-node.sh: no NODE_VERSION=<major>.<minor>.<patch> line');
  return match[1]!;
}

describe('the Node line', () => {
  it('is the major .ci/use-node.sh pins, for the tests and for the `node` that npm scripts run', () => {
    const pinned = pinnedNodeVersion();
    const major = (version: string) => version.split('.')[0];
    expect(major(process.versions.node), `tests run on Node ${process.versions.node}; .ci/use-node.sh pins ${pinned}`).toBe(major(pinned));
    const onPath = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    expect(major(onPath), `\`node\` on PATH is ${onPath}; .ci/use-node.sh pins ${pinned}`).toBe(major(pinned));
  });

  it('is allowed by package.json engines (the pinned version is not below its lower bound)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const floor = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(floor, `engines.node "${pkg.engines.node}" is not ">=<major>.<minor>"`).not.toBeNull();
    const [major, minor] = pinnedNodeVersion().split('.').map(Number) as [number, number];
    const [floorMajor, floorMinor] = [Number(floor![1]), Number(floor![2])];
    expect(major > floorMajor || (major === floorMajor && minor >= floorMinor)).toBe(true);
  });
});
