// holdYoungGeneration keeps a build's main-thread young generation at 32 MB (Node 24 would grow
// it to 128 MB), and threads started after it still get the young generation their limits allow.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('holdYoungGeneration', () => {
  it('stops the main thread at 32 MB; a worker started later grows to its resourceLimits', () => {
    // In a process of its own: the flags it sets are the whole process's.
    const script = `
      import v8 from 'node:v8';
      import { Worker } from 'node:worker_threads';
      import { holdYoungGeneration } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/compile/young-generation.ts')).href)};
      const youngMb = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
      // Objects that live through a few collections, as a chunk of articles does: they make V8 grow
      // it. The main thread's turns of the event loop in between, as a build's, let the cap be set.
      const churn = () => { const keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ s: 'x'.repeat(40) + i }); if (keep.length > 200000) keep.splice(0, 100000); } };
      const churnInTurns = async () => { const keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ s: 'x'.repeat(40) + i }); if (keep.length > 200000) keep.splice(0, 100000); if (i % 20000 === 0) await new Promise(setImmediate); } };
      holdYoungGeneration();
      await churnInTurns();
      const main = youngMb();
      const worker = new Worker(\`(\${churn})(); require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20);\`,
        { eval: true, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 96, maxOldGenerationSizeMb: 256 } });
      const inWorker = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
      process.stdout.write(JSON.stringify({ main, inWorker }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 0, signal: null });
    // Two semi-spaces each: at most 16 MB ones in the main thread (128 MB unheld: the same churn
    // grows it to 64 MB ones), the worker's 32 MB (96 MB / 3).
    const { main, inWorker } = JSON.parse(r.stdout);
    expect(main).toBeLessThanOrEqual(32);
    expect(inWorker).toBe(64);
  });
});
