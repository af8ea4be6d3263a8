// `npm run example:site` keeps the manners of Quire's commands: `--help` (or `-h`) prints its
// usage and starts nothing, and a mistyped option is an error rather than ignored.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../helpers/run-cli.ts';
import { createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

let p: TempProject;
beforeAll(() => {
  p = createTempProject();
  writeSite(p, 'one');
});
afterAll(() => p?.cleanup());

/** The script as a user runs it; one that starts the site instead of ending is killed (its whole process group) after 20 s. */
function exampleSite(
  ...args: string[]
): Promise<{ code: number | null; timedOut: boolean; stdout: string; stderr: string }> {
  const env = cliEnv({
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    EXAMPLE_SITE_PORT: '0',
  });
  const child = spawn('npm', ['run', '--silent', 'example:site', '--', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, 20_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    }),
  );
}

describe('npm run example:site, its command line', { timeout: 60_000 }, () => {
  it('--help and -h print the usage, exit 0 and start nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await exampleSite(flag);
      expect({ flag, code: r.code, timedOut: r.timedOut }).toEqual({ flag, code: 0, timedOut: false });
      expect(r.stdout).toContain('usage: npm run example:site [-- --site <id>]');
      expect(r.stdout).not.toContain('Webhook secret');
    }
    expect(fs.existsSync(path.join(p.stateDir, 'example-site'))).toBe(false);
  });

  it('an unknown option or an argument is an error with the usage, exit 2', async () => {
    for (const args of [['--sit', 'one'], ['one']]) {
      const r = await exampleSite(...args);
      expect({ args, code: r.code, timedOut: r.timedOut }).toEqual({ args, code: 2, timedOut: false });
      expect(r.stderr).toContain('usage: npm run example:site [-- --site <id>]');
    }
    expect(fs.existsSync(path.join(p.stateDir, 'example-site'))).toBe(false);
  });
});
