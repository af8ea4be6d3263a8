// A real zombie process for the tests of liveness checks: a child that exited and whose parent
// does not reap it. `sleep 0 &` under a shell that then becomes `sleep 30`, which never waits for
// children; the zombie lasts until that parent ends. Linux only (it waits on /proc).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export async function startZombie(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim())));
    parent.once('error', reject);
  });
  const until = Date.now() + 5000;
  while (!/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) {
    if (Date.now() > until) {
      parent.kill('SIGKILL');
      throw new Error(`process ${pid} did not become a zombie`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { pid, parent };
}
