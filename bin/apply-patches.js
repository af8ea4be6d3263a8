#!/usr/bin/env node
// `postinstall`: applies patches/ (speed fixes of dependencies that change no output) with
// patch-package, in Quire's own checkout only. Installed as a dependency of a content repository,
// Quire's dependencies are hoisted into that repository's node_modules, which is not Quire's to
// patch (and patch-package, a development tool, is not installed there): skip without a word.
// Builds are the same without the patches, only slower to render.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

if (!ROOT.split(path.sep).includes('node_modules')) {
  let bin;
  try {
    bin = createRequire(import.meta.url).resolve('patch-package/index.js');
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    process.stderr.write(
      'quire: patches/ not applied (patch-package is not installed, e.g. --omit=dev): builds are the same, only slower\n',
    );
  }
  if (bin) {
    const run = spawnSync(process.execPath, [bin], { cwd: ROOT, stdio: 'inherit' });
    process.exitCode = run.status ?? 1;
  }
}
