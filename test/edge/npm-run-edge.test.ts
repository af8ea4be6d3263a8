// `npm run edge -- --port <n>` (`quire edge`): the Worker under workerd serving the current build,
// as a user starts it; it prints its URL and answers there with the build's articles.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { runProgram, startProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, projectFolders, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = 'npm-run-edge-secret-0123456789abcdef0123';
let p: TempProject;
beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'demo');
  p.write('demo/articles/hello.md', article({ title: 'Hello', status: 'published', publishedAt: '2026-01-01' }));
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'http://127.0.0.1',
      })
    ).ok,
  ).toBe(true);
});
afterAll(() => p?.cleanup());

it('serves the current build under workerd and prints its URL', async () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const edge = await startProgram(
    npm,
    ['run', '-s', 'edge', '--', '--port', '0'],
    { ...projectFolders(p), QUIRE_SECRET: SECRET },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    60_000,
  );
  try {
    const key = createKeyring(SECRET, { generationOf: () => 1 }).keyFor('demo');
    const res = await fetch(`${edge.match[1]}/v1/articles/hello`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { title: string }).title).toBe('Hello');
    expect(edge.output()).toMatch(/deployed build \S+ to the local bucket: \d+ objects uploaded/);
  } finally {
    await edge.stop();
  }
}, 90_000);

it('prints its usage for --help, and refuses an option it does not know, as every quire command', async () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const help = await runProgram(npm, ['run', '-s', 'edge', '--', '--help'], projectFolders(p));
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^quire edge — /);
  expect(help.stdout).toContain('edge [--port <n>]');
  expect(help.stderr).toBe('');
  const wrong = await runProgram(npm, ['run', '-s', 'edge', '--', '--prot', '0'], projectFolders(p));
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain('unknown option --prot (did you mean --port?)');
  expect(wrong.stderr).not.toMatch(/\n\s+at /); // no stack
}, 60_000);
