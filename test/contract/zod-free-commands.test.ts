// The contract's schemas are zod, and loading zod costs a command ~0.1 s of its start: commands
// that only need the contract's types or its generated JSON Schema must not load it. `quire
// build` and `quire start` serving /openapi.json are run with a module hook that records which
// files of the CLI bundle they load; none of those may hold zod's code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quireCommand, runProgram, startProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

/** Marks zod's own code in a bundle file (class names esbuild keeps as strings). */
const ZOD = /\$ZodType|"ZodError"/;

let p: TempProject;
let dir: string;
let hook: string;
beforeAll(() => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write(
    'one/articles/a.md',
    article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-loaded-'));
  hook = path.join(dir, 'record-loads.mjs');
  fs.writeFileSync(
    hook,
    `import fs from 'node:fs';
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context); } });
process.on('exit', () => fs.writeFileSync(process.env.QUIRE_TEST_LOADED_LOG, [...loaded].join('\\n')));
`,
  );
});
afterAll(() => {
  p?.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

function bundleFilesLoaded(log: string): string[] {
  const urls = fs.readFileSync(log, 'utf8').split('\n');
  return urls.filter((u) => u.includes('/quire-cli/')).map((u) => new URL(u).pathname);
}

describe('commands that need no schema at run time load no zod', { timeout: 120_000 }, () => {
  const env = (log: string) => ({
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_TEST_LOADED_LOG: log,
    PORT: '0',
  });

  it('quire build', async () => {
    const log = path.join(dir, 'build.log');
    const build = quireCommand(['build'], ['--import', hook]);
    const r = await runProgram(build.command, build.args, env(log));
    expect(r.code, r.stderr).toBe(0);
    const files = bundleFilesLoaded(log);
    expect(files.length).toBeGreaterThan(0);
    // The marker does find zod: the bundle the command ran from holds it (for `quire mcp`).
    const bundle = fs.readdirSync(path.dirname(files[0]!)).map((f) => path.join(path.dirname(files[0]!), f));
    expect(bundle.filter((f) => ZOD.test(fs.readFileSync(f, 'utf8'))).length).toBeGreaterThan(0);
    expect(files.filter((f) => ZOD.test(fs.readFileSync(f, 'utf8'))).map((f) => path.basename(f))).toEqual([]);
  });

  it('quire start, serving /openapi.json', async () => {
    const log = path.join(dir, 'start.log');
    const start = quireCommand(['start'], ['--import', hook]);
    const server = await startProgram(
      start.command,
      start.args,
      env(log),
      /curl -H "Authorization: Bearer \S+" (\S+)\/v1\/articles\n/,
      60_000,
    );
    try {
      const res = await fetch(`${server.match[1]}/openapi.json`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { components: { schemas: object } }).components.schemas).toHaveProperty('Article');
    } finally {
      await server.stop();
    }
    const files = bundleFilesLoaded(log);
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => ZOD.test(fs.readFileSync(f, 'utf8'))).map((f) => path.basename(f))).toEqual([]);
  });
});
