// collectGarbage must really collect: it is what keeps a large build's main-thread heap small.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/compile/collect-garbage.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('collectGarbage', () => {
  it('frees unreachable objects at once, without the --expose-gc flag', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let garbage: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `item ${i}` }));
    const withGarbage = process.memoryUsage().heapUsed;
    expect(withGarbage - before).toBeGreaterThan(10 * 2 ** 20);
    garbage = null;
    collectGarbage();
    expect(garbage).toBeNull();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 2 ** 20);
  });
});

describe('collectGarbage and native objects', () => {
  it('finalizes the SQLite statements it frees, in a process of its own, which then exits cleanly', () => {
    // The collection runs with the helper context current; native finalizers (better-sqlite3's
    // statements here, as in the store and the render cache) must run in it without aborting.
    const script = `
      import Database from 'better-sqlite3';
      import { collectGarbage } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/compile/collect-garbage.ts')).href)};
      const db = new Database(':memory:');
      let finalized = 0;
      const registry = new FinalizationRegistry(() => finalized++);
      (() => { for (let i = 0; i < 2000; i++) { const s = db.prepare('SELECT ?'); s.get(i); registry.register(s, i); } })();
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 50));
      collectGarbage();
      db.close();
      process.stdout.write(String(finalized));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 0, signal: null });
    expect(Number(r.stdout)).toBeGreaterThan(1900);
  });
});
