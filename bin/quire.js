#!/usr/bin/env node
// The `quire` command (npm scripts, `npm link`, global installs). Runs the CLI from its bundle
// (see cli-bundle.js); if the bundle cannot be made, runs the TypeScript sources through tsx.
// First of all, on a Node too old for Quire: see node-check.js.
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { handOffIfTooOld } from './node-check.js';

if (!handOffIfTooOld(fileURLToPath(import.meta.url))) await import(await cliEntry());

async function cliEntry() {
  try {
    const { ensureBundle } = await import('./cli-bundle.js');
    return pathToFileURL(path.join(await ensureBundle(), 'main.mjs')).href;
  } catch (err) {
    process.stderr.write(
      `quire: running from sources (bundling failed: ${err instanceof Error ? err.message.split('\n')[0] : err})\n`,
    );
    const { register } = await import('tsx/esm/api');
    // Quire's own tsconfig.json (JSX for hono/jsx), not one found from the working directory: an
    // installed Quire runs in a content repository that has none.
    register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
    return new URL('../src/cli/main.ts', import.meta.url).href;
  }
}
