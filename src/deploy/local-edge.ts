// The edge Worker under workerd on this machine (through Miniflare), with a local R2 bucket
// filled from dist/ by the same deploy as `quire deploy` (deploy.ts over an R2 binding): for
// `quire edge`, the contract tests and the bench. Miniflare is not a dependency of Quire (it
// brings workerd, about 150 MB, which a content repository that serves from Node never needs):
// it is loaded from the repository that runs `quire edge`, and its absence is a problem that
// says how to install it.
import type { Miniflare as MiniflareClass } from 'miniflare';
import { readManifest } from '../export/export-files.ts';
import { keysFileOf } from '../config/state-layout.ts';
import { readKeyGenerations } from '../keys/key-generations.ts';
import { ProblemError } from '../problems/problem.ts';
import { deploy, edgeKeyGenerations, type DeploySummary } from './deploy.ts';
import { planExport } from './export-plan.ts';
import { openR2Store, type R2BucketLike } from './r2-object-store.ts';
import { bundleWorker, EXPORT_BINDING, WORKER_COMPATIBILITY_DATE } from './worker-bundle.ts';

/** The Miniflare major version Quire runs the Worker with (the checkout's devDependency). */
export const MINIFLARE_MAJOR = 4;

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

/** Miniflare's class, from wherever this process resolves `miniflare`; EDGE_RUNTIME_MISSING when it is not installed. */
export async function loadMiniflare(): Promise<typeof MiniflareClass> {
  try {
    return (await import('miniflare')).Miniflare;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes("'miniflare'")) {
      throw new ProblemError(
        'EDGE_RUNTIME_MISSING',
        `the local edge runs the Worker under workerd through Miniflare, which is not installed here: npm install --save-dev miniflare@${MINIFLARE_MAJOR}`,
        { cause: err },
      );
    }
    throw err;
  }
}

export async function startLocalEdge(options: LocalEdgeOptions): Promise<LocalEdge> {
  const Miniflare = await loadMiniflare();
  const { code } = await bundleWorker();
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: WORKER_COMPATIBILITY_DATE,
    r2Buckets: [EXPORT_BINDING],
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
    const store = openR2Store((await mf.getR2Bucket(EXPORT_BINDING)) as unknown as R2BucketLike, 'local');
    return {
      url,
      async deploy() {
        const manifest = readManifest(options.distDir);
        if (!manifest) throw new Error(`no build in ${options.distDir}: run \`quire build\` first`);
        const generations = readKeyGenerations(keysFileOf(options.stateDir));
        return deploy({
          store,
          plan: planExport(options.distDir, manifest),
          keyGenerations: edgeKeyGenerations(manifest, generations),
        });
      },
      close: () => mf.dispose(),
    };
  } catch (err) {
    await mf.dispose();
    throw err;
  }
}
