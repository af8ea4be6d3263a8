// The edge Worker as code to run: where its entry is in the Quire package (a checkout or the copy
// a content repository installed), the compatibility date it is tested with, its bundle as
// wrangler makes it, and the wrangler.toml that deploys it (the checkout's, and the one
// `quire edge --init` writes into a content repository). One place, so `quire edge` runs the
// Worker `wrangler deploy` would deploy.
import fs from 'node:fs';
import path from 'node:path';
import type { BuildOptions } from 'esbuild';

/** The Worker entry, relative to the package root (wrangler.toml's `main` in this checkout). */
export const WORKER_ENTRY = 'src/edge/worker.ts';
/** The Workers runtime's compatibility date the Worker is tested with. */
export const WORKER_COMPATIBILITY_DATE = '2025-09-01';
/** The R2 binding the Worker reads the export from. */
export const EXPORT_BINDING = 'QUIRE_EXPORT';

let root: string | null = null;

/**
 * The folder of the Quire package this code is part of: found upward from this module, which is
 * in src/ when run from the sources and in node_modules/.cache/ of the package when bundled.
 */
export function quirePackageRoot(): string {
  if (root) return root;
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (isQuireRoot(dir)) return (root = dir);
    if (path.dirname(dir) === dir)
      throw new Error(
        `no Quire package (a package.json named quire with ${WORKER_ENTRY}) above ${import.meta.dirname}`,
      );
  }
}

function isQuireRoot(dir: string): boolean {
  try {
    return (
      (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'quire' &&
      fs.existsSync(path.join(dir, WORKER_ENTRY))
    );
  } catch {
    return false;
  }
}

/** How the Worker is bundled (as wrangler bundles it for workerd: ES module, no Node platform). */
export const WORKER_BUNDLE = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['workerd', 'worker', 'browser', 'import'],
  metafile: true,
  logLevel: 'silent',
} satisfies BuildOptions;

let bundled: Promise<{ code: string; inputs: string[] }> | null = null;

/**
 * The Worker as one ES module, for a runtime without Node APIs (platform neutral, so a Node
 * built-in anywhere in its imports fails the bundle); `inputs` relative to the package root.
 */
export function bundleWorker(): Promise<{ code: string; inputs: string[] }> {
  bundled ??= (async () => {
    // esbuild is loaded when a Worker is bundled, not with the CLI: most commands never need it.
    const { build } = await import('esbuild');
    const absWorkingDir = quirePackageRoot();
    const out = await build({ ...WORKER_BUNDLE, absWorkingDir, entryPoints: [path.join(absWorkingDir, WORKER_ENTRY)] });
    return { code: out.outputFiles[0]!.text, inputs: Object.keys(out.metafile.inputs) };
  })();
  bundled.catch(() => (bundled = null)); // a failed bundle is tried again on the next call
  return bundled;
}

/**
 * wrangler.toml from its `name` line on, for a Worker whose entry is `main` (relative to the
 * file). The checkout's wrangler.toml ends with this text for `main` = WORKER_ENTRY (a test holds it to that).
 */
export function wranglerConfig(main: string): string {
  return `name = "quire-edge"
main = "${main}"
# No nodejs_compat: the Worker uses no Node API.
compatibility_date = "${WORKER_COMPATIBILITY_DATE}"

[[r2_buckets]]
binding = "${EXPORT_BINDING}"
bucket_name = "quire-export" # the bucket QUIRE_S3_BUCKET names

[vars]
# The prefix QUIRE_S3_PREFIX names, if any.
QUIRE_S3_PREFIX = ""
# How long an isolate trusts the pointer (current.json) before reading it again: the most a
# deploy or a key rotation waits to reach the edge once \`quire deploy\` has finished.
QUIRE_POINTER_TTL_SECONDS = "10"
# The URL clients use, as in /openapi.json and /llms.txt (default: the build's QUIRE_PUBLIC_URL).
# QUIRE_PUBLIC_URL = "https://api.example.com"
`;
}

/** The wrangler.toml `quire edge --init` writes into `dir`: the Worker of the Quire installed there. */
export function contentRepoWranglerToml(dir: string): string {
  const main = path.relative(dir, path.join(quirePackageRoot(), WORKER_ENTRY)).split(path.sep).join('/');
  return `# The Quire Content API as a Cloudflare Worker, reading the export \`quire deploy\` writes to R2.
# Written by \`quire edge --init\`; see Quire's docs/edge.md, "The API at the edge". Set the bucket below,
# then the secret (the same one the keys were made with) and deploy:
#   npx wrangler secret put QUIRE_SECRET
#   npx wrangler deploy
# \`main\` is the Worker of the Quire installed in this repository: after an upgrade of Quire,
# \`npx wrangler deploy\` deploys the new one.
${wranglerConfig(main)}`;
}
