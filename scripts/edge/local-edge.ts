// The edge Worker under workerd on this machine (Miniflare, from npm), with a local R2 bucket
// filled from dist/ by the same deploy as `quire deploy` (src/deploy/deploy.ts over an R2
// binding): for `npm run edge`, the contract tests and the bench.
import fs from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { Miniflare } from 'miniflare';
import { deploy, edgeKeyGenerations, type DeploySummary } from '../../src/deploy/deploy.ts';
import { planExport } from '../../src/deploy/export-plan.ts';
import { openR2Store, type R2BucketLike } from '../../src/deploy/r2-object-store.ts';
import { readManifest } from '../../src/dist/local-dist.ts';
import { KEYS_FILE, readKeyGenerations } from '../../src/keys/key-generations.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRANGLER_TOML = path.join(ROOT, 'wrangler.toml');

/** wrangler.toml's `main` and `compatibility_date`: the local Worker is the one deployed. */
export function wranglerSettings(): { main: string; compatibilityDate: string } {
  const text = fs.readFileSync(WRANGLER_TOML, 'utf8');
  const value = (name: string) => {
    const m = new RegExp(`^${name}\\s*=\\s*"([^"]+)"`, 'm').exec(text);
    if (!m) throw new Error(`${WRANGLER_TOML} has no ${name}`);
    return m[1]!;
  };
  return { main: value('main'), compatibilityDate: value('compatibility_date') };
}

let bundled: Promise<{ code: string; inputs: string[] }> | null = null;

/**
 * The Worker as one ES module, bundled as wrangler bundles it: for a runtime without Node APIs
 * (platform neutral, so a Node built-in anywhere in its imports fails the bundle).
 */
export function bundleWorker(): Promise<{ code: string; inputs: string[] }> {
  bundled ??= build({ ...WORKER_BUNDLE, entryPoints: [path.join(ROOT, wranglerSettings().main)] }).then((out) => ({
    code: out.outputFiles[0]!.text,
    inputs: Object.keys(out.metafile.inputs),
  }));
  return bundled;
}

/** How the Worker is bundled (as for workerd: ES module, no Node platform). */
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
  absWorkingDir: ROOT,
} satisfies BuildOptions;

export interface LocalEdgeOptions {
  distDir: string;
  stateDir: string;
  secret: string;
  port?: number;
  publicUrl?: string | null;
  pointerTtlSeconds?: number;
}

export interface LocalEdge {
  url: string;
  /** Deploys dist/ as it is now into the local bucket. */
  deploy(): Promise<DeploySummary>;
  close(): Promise<void>;
}

const BUCKET = 'QUIRE_EXPORT';

export async function startLocalEdge(options: LocalEdgeOptions): Promise<LocalEdge> {
  const { code } = await bundleWorker();
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: wranglerSettings().compatibilityDate,
    r2Buckets: [BUCKET],
    bindings: {
      QUIRE_SECRET: options.secret,
      QUIRE_POINTER_TTL_SECONDS: String(options.pointerTtlSeconds ?? 0),
      ...(options.publicUrl ? { QUIRE_PUBLIC_URL: options.publicUrl } : {}),
    },
    host: '127.0.0.1',
    port: options.port ?? 0,
  });
  try {
    const url = (await mf.ready).href.replace(/\/$/, '');
    const store = openR2Store((await mf.getR2Bucket(BUCKET)) as unknown as R2BucketLike, 'local');
    return {
      url,
      async deploy() {
        const manifest = readManifest(options.distDir);
        if (!manifest) throw new Error(`no build in ${options.distDir}: run \`npm run build\` first`);
        const generations = readKeyGenerations(path.join(options.stateDir, KEYS_FILE));
        return deploy({ store, plan: planExport(options.distDir, manifest), keyGenerations: edgeKeyGenerations(manifest, generations) });
      },
      close: () => mf.dispose(),
    };
  } catch (err) {
    await mf.dispose();
    throw err;
  }
}
