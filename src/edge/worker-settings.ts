// The Worker's settings, read from its bindings (wrangler.toml [vars], secrets, the R2 binding)
// once per isolate and checked: what is wrong is listed, all at once, in the Worker's log.
import { checkBaseUrl } from '../config/public-url.ts';
import type { EdgeSettings } from './edge-handler.ts';
import type { ExportBucket, ObjectCache } from './export-reader.ts';

export interface WorkerEnv {
  QUIRE_EXPORT: ExportBucket;
  QUIRE_SECRET?: string;
  QUIRE_S3_PREFIX?: string;
  QUIRE_PUBLIC_URL?: string;
  QUIRE_POINTER_TTL_SECONDS?: string;
}

/** How long an isolate trusts the pointer it read when QUIRE_POINTER_TTL_SECONDS is unset. */
export const DEFAULT_POINTER_TTL_SECONDS = 10;

/** The Worker's settings from its bindings; a list of what is wrong when they cannot be used. */
export function edgeSettings(env: WorkerEnv): EdgeSettings | string[] {
  const problems: string[] = [];
  if (!env.QUIRE_EXPORT || typeof env.QUIRE_EXPORT.get !== 'function')
    problems.push('QUIRE_EXPORT: bind the R2 bucket `quire deploy` fills (wrangler.toml [[r2_buckets]])');
  if (!env.QUIRE_SECRET || env.QUIRE_SECRET.length < 32)
    problems.push(
      'QUIRE_SECRET: must be the server secret the keys were made with, at least 32 characters (wrangler secret put QUIRE_SECRET)',
    );
  const ttl = env.QUIRE_POINTER_TTL_SECONDS ?? String(DEFAULT_POINTER_TTL_SECONDS);
  if (!/^\d{1,5}$/.test(ttl)) problems.push('QUIRE_POINTER_TTL_SECONDS: must be a whole number of seconds');
  // Checked as the Node process checks it; empty counts as unset there too.
  const publicUrl = env.QUIRE_PUBLIC_URL ? checkBaseUrl(env.QUIRE_PUBLIC_URL) : null;
  if (publicUrl?.ok === false) problems.push(`QUIRE_PUBLIC_URL: ${publicUrl.problem}`);
  const prefix = (env.QUIRE_S3_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  if (problems.length) return problems;
  const cache = (globalThis as { caches?: { default?: ObjectCache } }).caches?.default ?? null;
  return {
    bucket: env.QUIRE_EXPORT,
    secret: env.QUIRE_SECRET!,
    prefix,
    publicUrl: publicUrl?.ok ? publicUrl.url : null,
    pointerTtlMs: Number(ttl) * 1000,
    objectCache: cache,
    log: (line) => console.error(line),
  };
}
