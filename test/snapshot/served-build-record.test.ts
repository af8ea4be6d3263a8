// The served-build record is state on disk: a missing one means no server, and one that is not a
// record (malformed, oversized) is reported as unreadable, never taken for "no server" silently.
// It names the server by pid and start time: a pid since given to another process (a server
// killed by SIGKILL leaves its record) is no server; a record without a start time (written by an
// older version) is taken by its pid alone, as before.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readServedBuild, recordServedBuild, runningServerUrl, untilServed } from '../../src/snapshot/served-build.ts';
import { processStartTime } from '../../src/host/processes.ts';

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
    recordServedBuild(state, { pid: process.pid, distDir: 'dist', buildId: 'b1', publicUrl: 'http://localhost:40123' });
    expect(readServedBuild(state)).toEqual({
      pid: process.pid,
      startedAt: processStartTime(process.pid),
      distDir: path.resolve('dist'),
      buildId: 'b1',
      publicUrl: 'http://localhost:40123',
    });
    if (process.platform === 'linux') expect(processStartTime(process.pid)).toEqual(expect.any(Number));
  });

  it.runIf(process.platform === 'linux')(
    'a live pid with another start time is not the server: no wait, no public URL taken; the same pid and start time is waited for',
    async () => {
      const state = tempDir();
      const dist = tempDir();
      const other = spawn('sleep', ['30'], { stdio: 'ignore' }); // holds the pid the record names
      try {
        const file = path.join(state, 'served-build.json');
        const startedAt = processStartTime(other.pid!)!;
        const record = (r: object) =>
          fs.writeFileSync(file, JSON.stringify({ pid: other.pid, distDir: dist, buildId: 'served', ...r }));
        // The recorded server started earlier than the process that has its pid now.
        record({ startedAt: startedAt - 1, publicUrl: 'http://localhost:40123' });
        expect(runningServerUrl(state, dist)).toBeNull();
        let t = Date.now();
        expect(await untilServed(state, dist, 'new', 5000, 5)).toEqual({ status: 'no-server' });
        expect(Date.now() - t).toBeLessThan(1000);
        // The same process: it is waited for (and here never serves the build).
        record({ startedAt, publicUrl: 'http://localhost:40123' });
        expect(runningServerUrl(state, dist)).toEqual({ pid: other.pid, publicUrl: 'http://localhost:40123' });
        expect(runningServerUrl(state, tempDir())).toBeNull(); // it serves another dist/
        record({ startedAt });
        expect(runningServerUrl(state, dist)).toBeNull(); // a record without a public URL names none
        expect(await untilServed(state, dist, 'new', 200, 5)).toMatchObject({ status: 'timed-out', pid: other.pid });
        // A record of an older version has no start time: the pid alone decides, as before.
        record({});
        expect(readServedBuild(state)).toMatchObject({ startedAt: null, publicUrl: null });
        t = Date.now();
        expect(await untilServed(state, dist, 'new', 200, 5)).toMatchObject({ status: 'timed-out', pid: other.pid });
        expect(Date.now() - t).toBeGreaterThanOrEqual(200);
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it('is unreadable when malformed, of the wrong shape or oversized, and publish is told so', async () => {
    const state = tempDir();
    const file = path.join(state, 'served-build.json');
    for (const text of [
      '{not json',
      '{"pid":"1","distDir":"d","buildId":"b"}',
      '{"pid":1,"startedAt":"9","distDir":"d","buildId":"b"}',
      '{"pid":1,"distDir":"d","buildId":"b","publicUrl":8787}',
      'null',
      JSON.stringify({ pid: 1, distDir: 'd', buildId: 'b', pad: 'x'.repeat(5000) }),
    ]) {
      fs.writeFileSync(file, text);
      expect(readServedBuild(state)).toBe('unreadable');
    }
    expect(await untilServed(state, 'dist', 'b1', 50, 5)).toEqual({ status: 'unreadable' });
  });
});
