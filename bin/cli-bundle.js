// The CLI as one bundle: loading src/ module by module (ours, unified's, micromark's) costs every
// command more than loading one esbuild bundle of the same graph, whether through tsx or Node's
// own type stripping (docs/benchmarks.md, "Start-up and install"); and type stripping cannot run
// all of src/ (.tsx views), nor anything under node_modules, where an installed Quire lives.
// The bundle lives under node_modules/.cache, named by a fingerprint of the sources, so an edit to
// src/ (or a new install) makes the next command rebuild it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
export const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'quire-cli');

// Entry points: the CLI, and the threads under the names their modules start them by
// (`./render-worker-entry.mjs`, `./tree-helper-entry.mjs` next to the module), which in the
// bundle is this directory.
const ENTRIES = {
  main: 'src/cli/main.ts',
  'render-worker-entry': 'src/compile/render-worker.ts',
  'tree-helper-entry': 'src/export/writer/tree-helper-thread.ts',
};

/** How the CLI's code is bundled; benchmarks that time parts of it bundle them the same way. */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22', // package.json engines
  // Loaded from node_modules as installed: a native addon; esbuild, whose API runs its own binary;
  // Miniflare (`quire edge`), which the content repository installs if it wants it.
  external: ['better-sqlite3', 'esbuild', 'miniflare'],
  // CommonJS dependencies call require(); an ES module bundle has to provide one.
  banner: {
    js: "import { createRequire as __quireRequire } from 'node:module'; const require = __quireRequire(import.meta.url);",
  },
  logLevel: 'silent',
  // The web app's views are JSX for hono/jsx, as tsconfig.json says; said here too because esbuild
  // reads no tsconfig.json under node_modules, where an installed Quire lives.
  jsx: 'automatic',
  jsxImportSource: 'hono/jsx',
};

/** A hash of every source file's path, size and mtime, the lock file and the Node version. */
export function sourceFingerprint(srcDir = SRC) {
  const hash = crypto.createHash('sha256').update(process.version);
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else {
        const st = fs.statSync(file);
        hash.update(`${path.relative(srcDir, file)}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  walk(srcDir);
  // Dependencies are bundled in: a new lock file or a changed patch of one (patches/) counts too.
  const patches = path.join(ROOT, 'patches');
  const patchFiles = fs.existsSync(patches)
    ? fs
        .readdirSync(patches)
        .sort()
        .map((name) => `patches/${name}`)
    : [];
  for (const extra of ['package-lock.json', 'bin/cli-bundle.js', ...patchFiles]) {
    try {
      const st = fs.statSync(path.join(ROOT, extra));
      hash.update(`${extra}\0${st.size}\0${st.mtimeMs}\n`);
    } catch {
      // absent (e.g. installed without a lock file): the sources alone decide
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The bundle's directory for the current sources, built when missing. Concurrent callers each
 * build into a private directory and rename it into place; the first rename wins.
 */
export async function ensureBundle() {
  const fingerprint = sourceFingerprint();
  const dir = path.join(CACHE_DIR, fingerprint);
  if (fs.existsSync(path.join(dir, 'main.mjs'))) return dir;
  const { build } = await import('esbuild');
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(CACHE_DIR, `.${fingerprint}-`));
  try {
    await build({
      ...BUNDLE_OPTIONS,
      absWorkingDir: ROOT,
      entryPoints: ENTRIES,
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      splitting: true, // commands stay lazily loaded: each dynamic import is its own chunk
    });
    try {
      fs.renameSync(tmp, dir);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another process got there first
    }
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  pruneOldBundles(CACHE_DIR, fingerprint);
  return dir;
}

/**
 * Drops bundles of older sources, keeping the five newest and any made within a week: a server
 * started from an older bundle may still load chunks of it (a command, the render worker).
 */
export function pruneOldBundles(cacheDir, current) {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  const names = fs.readdirSync(cacheDir);
  // Half-made bundles of a killed command: their builder is long gone after a day.
  for (const name of names.filter((n) => n.startsWith('.'))) {
    const dir = path.join(cacheDir, name);
    try {
      if (fs.statSync(dir).mtimeMs < Date.now() - 24 * 3600 * 1000) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // raced with another pruner
    }
  }
  const bundles = names
    .filter((name) => name !== current && !name.startsWith('.'))
    .map((name) => {
      try {
        return { dir: path.join(cacheDir, name), mtimeMs: fs.statSync(path.join(cacheDir, name)).mtimeMs };
      } catch {
        return null; // raced with another pruner
      }
    })
    .filter((b) => b !== null)
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { dir, mtimeMs } of bundles.slice(4)) {
    if (mtimeMs < weekAgo) fs.rmSync(dir, { recursive: true, force: true });
  }
}
