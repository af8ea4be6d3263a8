// The framework examples (examples/nextjs, examples/astro) have their own package.json and lock.
// Their install is heavy, so it happens once per lock file: `npm ci` runs only when the lock's
// hash differs from the one recorded after the last install, and a later `npm test` reuses it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const STAMP = '.quire-installed-lock';
// What `npm test` passes down about this checkout; npm in the example must not act on it.
const OF_THIS_CHECKOUT =
  /^(npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|npm_config_call$|INIT_CWD$)/i;

/** The environment for npm or a framework's command in an example: no traces of this checkout's npm run. */
export function exampleEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !OF_THIS_CHECKOUT.test(k)) env[k] = v;
  // npm and the frameworks run by the Node that runs the tests.
  return { ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
}

/** `npm ci` in `dir` unless its node_modules was installed from this very lock file. Returns the seconds it took (0 when reused). */
export async function installExample(dir: string): Promise<number> {
  const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
  const want = `${createHash('sha256').update(lock).digest('hex')} node${process.versions.node.split('.')[0]}`;
  const stamp = path.join(dir, 'node_modules', STAMP);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return 0;
  const started = Date.now();
  await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: dir,
    env: exampleEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  fs.writeFileSync(stamp, want);
  return (Date.now() - started) / 1000;
}
