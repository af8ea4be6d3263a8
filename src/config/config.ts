// The one place that reads process.env: parse and validate settings once, fail before a port opens.
import path from 'node:path';
import { ProblemError } from '../problems/problem.ts';
import { DEFAULT_MAX_BODY_BYTES } from './defaults.ts';
import { checkBaseUrl } from './public-url.ts';

export { DEFAULT_MAX_BODY_BYTES };
import { NO_TRUSTED_PROXY, parseTrustProxy, TrustProxyValueError, type TrustProxy } from './trust-proxy.ts';

export interface QuireConfig {
  readonly port: number;
  /** Host the server binds to. */
  readonly host: string;
  /** Server secret for API keys, or null: then it is generated into the state dir. */
  readonly secret: string | null;
  readonly stateDir: string;
  /** QUIRE_DATABASE_URL: the state in PostgreSQL (postgres://…); null: SQLite in the state dir. */
  readonly databaseUrl: string | null;
  /** QUIRE_CONTENT_DIR, or `content` in the working directory (where a command finds it: src/follow/followed-content.ts). */
  readonly contentDir: string;
  /** QUIRE_CONTENT_DIR was set: the content is there, never looked for elsewhere. */
  readonly contentDirSet: boolean;
  readonly distDir: string;
  /**
   * QUIRE_PUBLIC_URL without trailing slash, or null. The URL a process uses is decided from this
   * and the port its server listens on, once, by `src/config/public-url.ts`.
   */
  readonly publicUrl: string | null;
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
  /** Cap on any request body the server reads; larger is answered 413. */
  readonly maxBodyBytes: number;
  /** Open connections at most; null: derived from the process's open-file limit at start. */
  readonly maxConnections: number | null;
  /** Open connections per client address (IPv6: per /64); 0: no per-client cap. Trusted proxies are not capped. */
  readonly maxConnectionsPerClient: number;
  /** QUIRE_TRUST_PROXY: peers whose X-Forwarded-For, -Proto and -Host are believed (none by default). */
  readonly trustProxy: TrustProxy;
  /** QUIRE_LOG_FORMAT: request and delivery log lines as text (default) or JSON lines. */
  readonly logFormat: 'text' | 'json';
  /** QUIRE_METRICS=1: serve Prometheus metrics at /metrics. */
  readonly metrics: boolean;
  /** QUIRE_GIT_HOOK_SECRET: signs push notifications to POST /hooks/git (`start --follow`); null: no push endpoint. */
  readonly gitHookSecret: string | null;
  /** QUIRE_FOLLOW_MAX_BYTES: what one sync of `start --follow` may fetch, and the checked-out tree's size at most. */
  readonly followMaxBytes: number;
  /** QUIRE_PREVIEW_BRANCHES_MAX: how many branches `start --follow --previews` previews at once. */
  readonly previewBranchesMax: number;
  /** QUIRE_PREVIEW_BRANCH_MAX_BYTES: what one sync of a previewed branch may fetch, and its tree's size at most. */
  readonly previewBranchMaxBytes: number;
  /**
   * QUIRE_TEST_SWAP_PAUSE_FILE, for tests only: a build that swaps dist/ in writes this file and
   * waits between its two renames, so a test can kill it at the one moment dist/ is missing.
   */
  readonly testSwapPauseFile: string | null;
  /** `quire deploy`: the S3-compatible bucket the export goes to (QUIRE_S3_*); bucket null: not set up. */
  readonly s3: S3Config;
}

export interface S3Config {
  readonly bucket: string | null;
  /** Key prefix without surrounding `/` ('' for none). */
  readonly prefix: string;
  readonly endpoint: string | null;
  readonly region: string;
}

export class ConfigError extends ProblemError<'CONFIG_INVALID'> {
  readonly problems: string[];
  constructor(problems: string[]) {
    super('CONFIG_INVALID', `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

// Hand-written checks rather than a schema library: this runs before every command, and
// loading zod would lengthen each command's start (docs/benchmarks-log.md, "zod kept out of build
// and serve").
/** One setting's check failed: not a problem of its own, it becomes a line of the ConfigError. */
class Invalid extends Error {}

const wholeNumber =
  (min: number, max: number, what = 'a whole number') =>
  (v: string) => {
    if (!/^\d+$/.test(v)) throw new Invalid(`must be ${what}`);
    const n = Number(v);
    if (n < min || n > max) throw new Invalid(`must be between ${min} and ${max}`);
    return n;
  };

const atLeast =
  (length: number, message = `must be at least ${length} characters`) =>
  (v: string) => {
    if (v.length < length) throw new Invalid(message);
    return v;
  };

const text = (v: string) => v;

function absoluteUrl(v: string, example: string): URL {
  try {
    return new URL(v);
  } catch {
    throw new Invalid(`must be an absolute URL such as ${example}`);
  }
}

/** A base URL (public-url.ts checks it), without trailing slashes. */
function httpUrl(v: string): string {
  const checked = checkBaseUrl(v);
  if (!checked.ok) throw new Invalid(checked.problem);
  return checked.url;
}

function postgresUrl(v: string): string {
  const url = absoluteUrl(v, 'postgres://user:password@host:5432/quire');
  if (!/^postgres(ql)?:$/.test(url.protocol))
    throw new Invalid(`must be a PostgreSQL URL (postgres://…), not ${url.protocol}//…`);
  if (!url.pathname.slice(1))
    throw new Invalid('must name the database (postgres://user:password@host:5432/<database>)');
  return v;
}

function logFormat(v: string): 'text' | 'json' {
  if (v !== 'text' && v !== 'json') throw new Invalid('must be text or json');
  return v;
}

function trustProxy(v: string): TrustProxy {
  try {
    return parseTrustProxy(v);
  } catch (err) {
    if (err instanceof TrustProxyValueError) throw new Invalid(err.message);
    throw err;
  }
}

function bucketName(v: string): string {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v))
    throw new Invalid('must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens');
  return v;
}

function keyPrefix(v: string): string {
  const prefix = v.replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(prefix) || prefix.split('/').some((s) => s === '.' || s === '..')) {
    throw new Invalid('must be a key prefix such as quire/production (letters, digits, . _ - and /)');
  }
  return prefix;
}

function region(v: string): string {
  if (!/^[a-z0-9-]+$/.test(v)) throw new Invalid('must be a region name such as auto or eu-west-1');
  return v;
}

function flag(v: string): boolean {
  if (!['0', '1', 'true', 'false'].includes(v)) throw new Invalid('must be 1 or 0');
  return v === '1' || v === 'true';
}

// The one settings table: how each variable is read, and the line `quire --help` prints for it.
const SETTINGS = {
  PORT: { read: wholeNumber(0, 65535), about: 'port of the server (default 8787; 0: any free port)' },
  HOST: {
    read: text,
    about:
      'address to listen on (default 127.0.0.1; beyond loopback, set QUIRE_PUBLIC_URL too, or any Host is answered)',
  },
  QUIRE_SECRET: {
    read: atLeast(32, 'must be at least 32 characters (use e.g. `openssl rand -hex 32`)'),
    about: 'server secret for API keys (default: generated into the state dir)',
  },
  QUIRE_STATE_DIR: {
    read: text,
    about: 'state: secret, key generations, webhooks, caches, drafts for previews (default .quire)',
  },
  QUIRE_DATABASE_URL: {
    read: postgresUrl,
    about:
      'the state (webhooks, outbox, deliveries, publish records, locks, key generations) in PostgreSQL, postgres://user:password@host:5432/db (default: SQLite in the state dir); several servers and `quire worker`s share it',
  },
  QUIRE_CONTENT_DIR: {
    read: text,
    about:
      "the content tree (default content; where there is none, beside a `start --follow` server: its checkout's content/ in the state dir)",
  },
  QUIRE_DIST_DIR: { read: text, about: 'build output, the public export: no drafts (default dist)' },
  QUIRE_PUBLIC_URL: {
    read: httpUrl,
    about:
      "base URL clients use (default http://localhost:$PORT; PORT=0: the port the server was given; a build beside a running server: that server's); the server answers only its host and localhost (421 to others), and serves only builds made for its URL",
  },
  QUIRE_ALLOW_PRIVATE_TARGETS: {
    read: flag,
    about: 'development and tests only: 1 lets webhooks and checks reach loopback and private addresses',
  },
  QUIRE_WEBHOOK_TIMEOUT_MS: {
    read: wholeNumber(100, 120_000, 'a whole number of milliseconds'),
    about: 'time-out of one delivery attempt (default 10000)',
  },
  QUIRE_PUBLISH_RETRY_WINDOW_MS: {
    read: wholeNumber(0, 3_600_000, 'a whole number of milliseconds'),
    about: 'how long publish waits for quick retries (default 15000)',
  },
  QUIRE_WEBHOOK_SECRET: { read: text, about: 'secret for `webhook set` when --secret is not given' },
  QUIRE_ADMIN_TOKEN: { read: atLeast(16), about: 'token to sign in to /admin (default: generated per start)' },
  QUIRE_MAX_BODY_BYTES: {
    read: wholeNumber(1024, 1024 ** 3, 'a whole number of bytes'),
    about: 'largest request body the server reads; larger is answered 413 (default 1048576)',
  },
  QUIRE_MAX_CONNECTIONS: {
    read: wholeNumber(1, 1_000_000),
    about: 'open connections at most (default 4096, kept below the open-file limit)',
  },
  QUIRE_MAX_CONNECTIONS_PER_CLIENT: {
    read: wholeNumber(0, 1_000_000),
    about: 'open connections per client address (default 64; 0: no cap; a trusted proxy is not capped)',
  },
  QUIRE_TRUST_PROXY: {
    read: trustProxy,
    about:
      'behind a reverse proxy: 1 (the peer is the proxy) or its addresses/CIDRs, comma-separated; X-Forwarded-For, -Proto and -Host are read only from it (default: never)',
  },
  QUIRE_LOG_FORMAT: {
    read: logFormat,
    about: 'request and delivery log lines on stderr: text (default) or json (one JSON object a line)',
  },
  QUIRE_METRICS: {
    read: flag,
    about: '1 serves Prometheus metrics at /metrics (default 0: /metrics is 404); keep it behind the proxy',
  },
  QUIRE_GIT_HOOK_SECRET: {
    read: atLeast(16, 'must be at least 16 characters (use e.g. `openssl rand -hex 32`)'),
    about:
      'start --follow: the secret of push notifications to POST /hooks/git (GitHub webhook secret or GitLab token); unset: no push endpoint',
  },
  QUIRE_FOLLOW_MAX_BYTES: {
    read: wholeNumber(1024 * 1024, 2 ** 50, 'a whole number of bytes'),
    about:
      "start --follow: bytes one fetch may bring, and the checked-out tree's size at most; a commit over it is not checked out (default 1073741824, 1 GiB)",
  },
  QUIRE_PREVIEW_BRANCHES_MAX: {
    read: wholeNumber(1, 1000),
    about:
      'start --follow --previews: branches previewed at once; past it the least recently pushed is dropped, with a log line (default 10)',
  },
  QUIRE_PREVIEW_BRANCH_MAX_BYTES: {
    read: wholeNumber(1024 * 1024, 2 ** 50, 'a whole number of bytes'),
    about:
      "start --follow --previews: bytes one fetch of a previewed branch may bring, and its tree's size at most; a commit over it is not previewed (default: QUIRE_FOLLOW_MAX_BYTES)",
  },
  QUIRE_S3_BUCKET: {
    read: bucketName,
    about:
      '`quire deploy`: the S3-compatible bucket (AWS S3, Cloudflare R2, MinIO…) the export is published to; credentials as the AWS SDK reads them (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)',
  },
  QUIRE_S3_PREFIX: {
    read: keyPrefix,
    about: '`quire deploy`: a key prefix inside the bucket, e.g. quire/production (default: none)',
  },
  QUIRE_S3_ENDPOINT: {
    read: httpUrl,
    about:
      '`quire deploy`: the endpoint of an S3-compatible service other than AWS, e.g. https://<account>.r2.cloudflarestorage.com (default: AWS S3)',
  },
  QUIRE_S3_REGION: { read: region, about: "`quire deploy`: the bucket's region (default auto, as R2 wants)" },
  // Read like the others, but no user sets it: left out of `quire --help` and docs/settings.md.
  QUIRE_TEST_SWAP_PAUSE_FILE: {
    read: text,
    about: 'tests only: a build writes this file and waits between the two renames of its dist/ swap',
    testOnly: true,
  },
} satisfies Record<string, { read: (v: string) => unknown; about: string; testOnly?: true }>;

type Settings = { [K in keyof typeof SETTINGS]?: ReturnType<(typeof SETTINGS)[K]['read']> };

/** Every setting a user sets, with one line about it (for `quire --help`); test-only hooks are not listed. */
export const SETTING_LINES: readonly { name: string; about: string }[] = Object.entries(SETTINGS)
  .filter(([, s]) => !('testOnly' in s))
  .map(([name, s]) => ({ name, about: s.about }));

/** Every setting checked; all problems reported at once. An empty value counts as unset. */
function readSettings(env: Record<string, string | undefined>): Settings {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(SETTINGS) as [string, { read: (v: string) => unknown }][]) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    try {
      out[name] = setting.read(value);
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      problems.push(`${name}: ${err.message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Settings;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_FOLLOW_MAX_BYTES = 1024 ** 3;
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 64;
export const DEFAULT_PREVIEW_BRANCHES_MAX = 10;

/** Pure: builds the frozen config from an environment map and a working directory. */
export function parseConfig(env: Record<string, string | undefined>, cwd: string = process.cwd()): QuireConfig {
  const e = readSettings(env);
  const port = e.PORT ?? DEFAULT_PORT;
  const host = e.HOST ?? '127.0.0.1';
  return Object.freeze({
    port,
    host,
    secret: e.QUIRE_SECRET ?? null,
    stateDir: path.resolve(cwd, e.QUIRE_STATE_DIR ?? '.quire'),
    databaseUrl: e.QUIRE_DATABASE_URL ?? null,
    contentDir: path.resolve(cwd, e.QUIRE_CONTENT_DIR ?? 'content'),
    contentDirSet: e.QUIRE_CONTENT_DIR !== undefined,
    distDir: path.resolve(cwd, e.QUIRE_DIST_DIR ?? 'dist'),
    publicUrl: e.QUIRE_PUBLIC_URL ?? null,
    allowPrivateTargets: e.QUIRE_ALLOW_PRIVATE_TARGETS ?? false,
    webhookTimeoutMs: e.QUIRE_WEBHOOK_TIMEOUT_MS ?? 10_000,
    publishRetryWindowMs: e.QUIRE_PUBLISH_RETRY_WINDOW_MS ?? 15_000,
    webhookSecret: e.QUIRE_WEBHOOK_SECRET ?? null,
    adminToken: e.QUIRE_ADMIN_TOKEN ?? null,
    maxBodyBytes: e.QUIRE_MAX_BODY_BYTES ?? DEFAULT_MAX_BODY_BYTES,
    maxConnections: e.QUIRE_MAX_CONNECTIONS ?? null,
    maxConnectionsPerClient: e.QUIRE_MAX_CONNECTIONS_PER_CLIENT ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
    trustProxy: e.QUIRE_TRUST_PROXY ?? NO_TRUSTED_PROXY,
    logFormat: e.QUIRE_LOG_FORMAT ?? 'text',
    metrics: e.QUIRE_METRICS ?? false,
    gitHookSecret: e.QUIRE_GIT_HOOK_SECRET ?? null,
    followMaxBytes: e.QUIRE_FOLLOW_MAX_BYTES ?? DEFAULT_FOLLOW_MAX_BYTES,
    previewBranchesMax: e.QUIRE_PREVIEW_BRANCHES_MAX ?? DEFAULT_PREVIEW_BRANCHES_MAX,
    previewBranchMaxBytes: e.QUIRE_PREVIEW_BRANCH_MAX_BYTES ?? e.QUIRE_FOLLOW_MAX_BYTES ?? DEFAULT_FOLLOW_MAX_BYTES,
    testSwapPauseFile: e.QUIRE_TEST_SWAP_PAUSE_FILE ? path.resolve(cwd, e.QUIRE_TEST_SWAP_PAUSE_FILE) : null,
    s3: Object.freeze({
      bucket: e.QUIRE_S3_BUCKET ?? null,
      prefix: e.QUIRE_S3_PREFIX ?? '',
      endpoint: e.QUIRE_S3_ENDPOINT ?? null,
      region: e.QUIRE_S3_REGION ?? 'auto',
    }),
  });
}
