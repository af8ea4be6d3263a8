// Whether a recorded pid still runs, with real processes: a live one, one that is gone, and a
// real zombie (exited, not reaped: test/helpers/zombie.ts). The signal 0 that the check used
// alone succeeds on a zombie; on Linux /proc says it runs nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning, processStartTime } from '../../src/host/processes.ts';
import { isDeadOwnerOnThisHost } from '../../src/store/owners.ts';
import { startZombie } from '../helpers/zombie.ts';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

const onLinux = process.platform === 'linux';

describe('isProcessRunning', () => {
  it('a live process runs; one that ended (and was reaped) does not', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    started.push(child);
    expect(isProcessRunning(process.pid)).toBe(true);
    expect(isProcessRunning(child.pid!)).toBe(true);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(isProcessRunning(child.pid!)).toBe(false);
    expect(isProcessRunning(0)).toBe(false);
    expect(isProcessRunning(-1)).toBe(false);
  });

  it.runIf(onLinux)('a zombie (exited, not reaped) does not run, though a signal 0 still reaches its pid', async () => {
    const { pid, parent } = await startZombie();
    started.push(parent);
    expect(() => process.kill(pid, 0)).not.toThrow(); // what the check alone used to take for alive
    expect(isProcessRunning(pid)).toBe(false);
    // A lease owner that is a zombie of this host is a dead one: its leases are freed.
    expect(isDeadOwnerOnThisHost(`${os.hostname()}/${pid}/worker-0`)).toBe(true);
    expect(isDeadOwnerOnThisHost(`${os.hostname()}/${process.pid}/worker-0`)).toBe(false);
  });
});

describe('a process whose name has spaces and parentheses', () => {
  it.runIf(onLinux)('is read past its name: running, with its own start time', async () => {
    // Its name (the comm field of /proc/<pid>/stat, the file name it was started by) reads like a
    // zombie's state and fields: split on spaces, the state would be 'Z' and every field shifted.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-comm-'));
    try {
      const exe = path.join(dir, 'x) Z 1 (y');
      fs.symlinkSync(execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), exe);
      const child = spawn(exe, ['30'], { stdio: 'ignore' });
      started.push(child);
      const stat = () => fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      await expect.poll(stat).toContain('(x) Z 1 (y) S ');
      expect(isProcessRunning(child.pid!)).toBe(true);
      const name = '(x) Z 1 (y) ';
      expect(processStartTime(child.pid!)).toBe(
        Number(
          stat()
            .slice(stat().indexOf(name) + name.length)
            .split(' ')[19],
        ),
      );
      expect(processStartTime(child.pid!)).toBeGreaterThanOrEqual(processStartTime(process.pid)!);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('processStartTime', () => {
  it.runIf(onLinux)(
    "is the kernel's start time of the pid: the same on each read, another for another process, null when gone",
    async () => {
      const a = spawn('sleep', ['30'], { stdio: 'ignore' });
      started.push(a);
      await new Promise((r) => setTimeout(r, 30)); // a tick (10 ms) later than this process at least
      const t = processStartTime(a.pid!);
      expect(t).toEqual(expect.any(Number));
      expect(processStartTime(a.pid!)).toBe(t);
      expect(processStartTime(process.pid)).toBeLessThan(t!);
      const exited = new Promise((r) => a.once('exit', r));
      a.kill('SIGKILL');
      await exited;
      expect(processStartTime(a.pid!)).toBeNull();
    },
  );

  it.runIf(!onLinux)('is null where /proc is not there', () => {
    expect(processStartTime(process.pid)).toBeNull();
  });
});
