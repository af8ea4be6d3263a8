// `quire/client` runs wherever fetch does (Node, browsers, Workers): its sources import only each
// other at run time, and the contract's types with `import type`; never a Node built-in, zod or
// any other package. Checked on the sources' import statements and on the shipped bundle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildClient } from '../../bin/build-client.js';

const CLIENT = path.resolve(import.meta.dirname, '../../src/client');
const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

function importsOf(text: string): { specifier: string; typeOnly: boolean }[] {
  return [...text.matchAll(IMPORT)].map((m) => ({ specifier: m[3]!, typeOnly: m[2] !== undefined }));
}

describe('quire/client is portable', () => {
  const files = fs.readdirSync(CLIENT).filter((f) => f.endsWith('.ts'));

  it('imports only its own modules, and the contract only for types', () => {
    expect(files).toContain('index.ts');
    for (const file of files) {
      for (const { specifier, typeOnly } of importsOf(fs.readFileSync(path.join(CLIENT, file), 'utf8'))) {
        const ok = /^\.\/[\w-]+\.ts$/.test(specifier) || (typeOnly && /^\.\.\/contract\/[\w-]+\.ts$/.test(specifier));
        expect(ok, `${file} imports ${specifier}${typeOnly ? ' (types)' : ''}`).toBe(true);
      }
    }
  });

  it('the scan sees what it must refuse', () => {
    const probe =
      "import fs from 'node:fs';\nimport { z } from 'zod';\nexport { x } from './x.ts';\nimport type { Article } from '../contract/article.ts';\n";
    expect(importsOf(probe)).toEqual([
      { specifier: 'node:fs', typeOnly: false },
      { specifier: 'zod', typeOnly: false },
      { specifier: './x.ts', typeOnly: false },
      { specifier: '../contract/article.ts', typeOnly: true },
    ]);
  });

  it('bundles for a neutral platform into one module that imports nothing', async () => {
    const out = await buildClient(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-client-')));
    try {
      const js = fs.readFileSync(path.join(out, 'index.js'), 'utf8');
      expect(js).not.toMatch(/^\s*import\s/m);
      expect(js).not.toMatch(/\brequire\(|node:|process\.|Buffer\b/);
      expect(fs.existsSync(path.join(out, 'types', 'client', 'index.d.ts'))).toBe(true);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
