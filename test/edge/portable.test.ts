// The edge Worker runs on workerd without Node APIs. Its bundle is made for a neutral platform,
// where importing a Node built-in anywhere in what it reaches fails the bundle; the bundle is
// then checked for Node globals and for parts of Quire that belong to the Node process only.
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleWorker, WORKER_BUNDLE } from '../../src/deploy/worker-bundle.ts';

describe('the edge Worker bundle', () => {
  it('bundles for a runtime without Node, from the Worker entry and what the Content API needs only', async () => {
    const { code, inputs } = await bundleWorker();
    expect(inputs).toContain('src/edge/worker.ts');
    expect(inputs).toContain('src/api/app.ts');
    const nodeOnly = inputs.filter(
      (i) =>
        /^src\/(app|cli|store|delivery|net|server|admin|mcp|compile|export\/writer|deploy|publish|follow|render|git)\//.test(
          i,
        ) ||
        /node_modules\/(better-sqlite3|@aws-sdk|@hono\/node-server)\//.test(i) ||
        i === 'src/config/config.ts',
    );
    expect(nodeOnly).toEqual([]);
    // Node's globals, used (not named in a text): none.
    expect(code).not.toMatch(/(?<![.\w])(require\(|Buffer\s*[.(]|__dirname|setImmediate\()/);
    // `process` appears only as the optional lookups of Node's hash and zlib (content-hash.ts,
    // body-encodings.ts), absent on workerd.
    const processUses = [...code.matchAll(/(?<![.\w])process\s*(\?\.|\.|\[)|globalThis\.process\b/g)].map((m) =>
      code.slice(m.index, m.index + 60),
    );
    expect(processUses).toEqual([
      expect.stringMatching(/^globalThis\.process\?\.getBuiltinModule\?\.\(\s*"node:crypto"\s*\)/),
      expect.stringMatching(/^globalThis\.process\?\.getBuiltinModule\?\.\(\s*"node:zlib"\s*\)/),
    ]);
  }, 60_000);

  it('refuses a Node built-in (the check can fail)', async () => {
    await expect(
      build({ ...WORKER_BUNDLE, stdin: { contents: "import fs from 'node:fs'; export default fs;", resolveDir: '.' } }),
    ).rejects.toThrow(/node:fs/);
  });
});
