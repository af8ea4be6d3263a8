// The served-build record is state on disk: a missing one means no server, and one that is not a
// record (malformed, oversized) is reported as unreadable, never taken for "no server" silently.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readServedBuild, recordServedBuild, untilServed } from '../../src/dist/served-build.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-served-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the served-build record', () => {
  it('is none when missing, and reads back what was recorded', () => {
    const state = tempDir();
    expect(readServedBuild(state)).toBeNull();
    recordServedBuild(state, { pid: 42, distDir: 'dist', buildId: 'b1' });
    expect(readServedBuild(state)).toEqual({ pid: 42, distDir: path.resolve('dist'), buildId: 'b1' });
  });

  it('is unreadable when malformed, of the wrong shape or oversized, and publish is told so', async () => {
    const state = tempDir();
    const file = path.join(state, 'served-build.json');
    for (const text of ['{not json', '{"pid":"1","distDir":"d","buildId":"b"}', 'null', JSON.stringify({ pid: 1, distDir: 'd', buildId: 'b', pad: 'x'.repeat(5000) })]) {
      fs.writeFileSync(file, text);
      expect(readServedBuild(state)).toBe('unreadable');
    }
    expect(await untilServed(state, 'dist', 'b1', 50, 5)).toEqual({ status: 'unreadable' });
  });
});
