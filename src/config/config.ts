// The one place that reads process.env: parse and validate settings once, fail before a port opens.
import path from 'node:path';
import { z } from 'zod';

export interface QuireConfig {
  readonly port: number;
  /** Host the server binds to. */
  readonly host: string;
  /** Server secret for API keys, or null: then it is generated into the state dir. */
  readonly secret: string | null;
  readonly stateDir: string;
  readonly contentDir: string;
  readonly distDir: string;
  /** Base URL of this server as clients see it, without trailing slash. */
  readonly publicUrl: string;
  /** True when QUIRE_PUBLIC_URL was set explicitly. */
  readonly publicUrlExplicit: boolean;
  /** Development and tests only: let webhooks and checks reach loopback and private addresses. */
  readonly allowPrivateTargets: boolean;
  /** Time-out of one webhook delivery attempt. */
  readonly webhookTimeoutMs: number;
  /** How long `publish` waits for quick retries before leaving them to the next run. */
  readonly publishRetryWindowMs: number;
  /** QUIRE_WEBHOOK_SECRET: the secret for `webhook set` when --secret is not given. */
  readonly webhookSecret: string | null;
  /** QUIRE_ADMIN_TOKEN: signs in to /admin; null: the server generates one per start. */
  readonly adminToken: string | null;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const EnvSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= 0 && n <= 65535, 'must be between 0 and 65535')
    .optional(),
  HOST: z.string().min(1).optional(),
  QUIRE_SECRET: z.string().min(32, 'must be at least 32 characters (use e.g. `openssl rand -hex 32`)').optional(),
  QUIRE_STATE_DIR: z.string().min(1).optional(),
  QUIRE_CONTENT_DIR: z.string().min(1).optional(),
  QUIRE_DIST_DIR: z.string().min(1).optional(),
  QUIRE_PUBLIC_URL: z
    .string()
    .url('must be an absolute URL such as https://api.example.com')
    .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must use http or https')
    .refine((u) => !new URL(u).search && !new URL(u).hash, 'must not have a query or fragment')
    .optional(),
  QUIRE_ALLOW_PRIVATE_TARGETS: z.enum(['0', '1', 'true', 'false'], { message: 'must be 1 or 0' }).optional(),
  QUIRE_WEBHOOK_TIMEOUT_MS: milliseconds(100, 120_000).optional(),
  QUIRE_PUBLISH_RETRY_WINDOW_MS: milliseconds(0, 3_600_000).optional(),
  QUIRE_WEBHOOK_SECRET: z.string().min(1).optional(),
  QUIRE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
});

function milliseconds(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);
}

export const DEFAULT_PORT = 8787;

/** Pure: builds the frozen config from an environment map and a working directory. */
export function parseConfig(env: Record<string, string | undefined>, cwd: string = process.cwd()): QuireConfig {
  const raw = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const port = e.PORT ?? DEFAULT_PORT;
  const host = e.HOST ?? '127.0.0.1';
  const publicUrl = (e.QUIRE_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return Object.freeze({
    port,
    host,
    secret: e.QUIRE_SECRET ?? null,
    stateDir: path.resolve(cwd, e.QUIRE_STATE_DIR ?? '.quire'),
    contentDir: path.resolve(cwd, e.QUIRE_CONTENT_DIR ?? 'content'),
    distDir: path.resolve(cwd, e.QUIRE_DIST_DIR ?? 'dist'),
    publicUrl,
    publicUrlExplicit: e.QUIRE_PUBLIC_URL !== undefined,
    allowPrivateTargets: e.QUIRE_ALLOW_PRIVATE_TARGETS === '1' || e.QUIRE_ALLOW_PRIVATE_TARGETS === 'true',
    webhookTimeoutMs: e.QUIRE_WEBHOOK_TIMEOUT_MS ?? 10_000,
    publishRetryWindowMs: e.QUIRE_PUBLISH_RETRY_WINDOW_MS ?? 15_000,
    webhookSecret: e.QUIRE_WEBHOOK_SECRET ?? null,
    adminToken: e.QUIRE_ADMIN_TOKEN ?? null,
  });
}
