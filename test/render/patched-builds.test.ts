// patches/ change both builds of each package: dev/ (what the test runner loads, under its
// `development` condition) and the published one (what builds and the CLI load). Tests that run
// the parser only see dev/, so a patch that left the other build unparsable would pass them:
// every JavaScript file a patch touches must still parse.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const patched = fs
  .readdirSync(path.join(ROOT, 'patches'))
  .flatMap((patch) => fs.readFileSync(path.join(ROOT, 'patches', patch), 'utf8').split('\n'))
  .filter((line) => line.startsWith('+++ b/') && line.endsWith('.js'))
  .map((line) => line.slice('+++ b/'.length));

describe('patched builds', () => {
  it('name files in both builds', () => {
    expect(patched.some((file) => file.includes('/dev/'))).toBe(true);
    expect(patched.some((file) => !file.includes('/dev/'))).toBe(true);
  });

  it.each(patched)('%s parses', (file) => {
    const check = spawnSync(process.execPath, ['--check', path.join(ROOT, file)], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
