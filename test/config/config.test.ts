import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PORT, parseConfig } from '../../src/config/config.ts';
import type { TrustProxy } from '../../src/config/trust-proxy.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    parseConfig(env, '/srv/site');
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('parseConfig', () => {
  it('gives defaults for an empty environment, with paths resolved against the working directory', () => {
    const c = parseConfig({}, '/srv/site');
    expect(c).toEqual({
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      secret: null,
      stateDir: path.resolve('/srv/site/.quire'),
      databaseUrl: null,
      contentDir: path.resolve('/srv/site/content'),
      contentDirSet: false,
      distDir: path.resolve('/srv/site/dist'),
      publicUrl: null,
      allowPrivateTargets: false,
      webhookTimeoutMs: 10_000,
      publishRetryWindowMs: 15_000,
      webhookSecret: null,
      adminToken: null,
      maxBodyBytes: 1024 * 1024,
      maxConnections: null,
      maxConnectionsPerClient: 64,
      trustProxy: { kind: 'none' },
      logFormat: 'text',
      metrics: false,
      gitHookSecret: null,
      followMaxBytes: 1024 ** 3,
      previewBranchesMax: 10,
      previewBranchMaxBytes: 1024 ** 3,
      testSwapPauseFile: null,
      s3: { bucket: null, prefix: '', endpoint: null, region: 'auto' },
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every setting', () => {
    const c = parseConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        QUIRE_SECRET: 's'.repeat(32),
        QUIRE_STATE_DIR: 'state',
        QUIRE_CONTENT_DIR: '/abs/content',
        QUIRE_DIST_DIR: 'out',
        QUIRE_PUBLIC_URL: 'https://api.example.com/base//',
        QUIRE_ALLOW_PRIVATE_TARGETS: 'true',
        QUIRE_WEBHOOK_TIMEOUT_MS: '2500',
        QUIRE_PUBLISH_RETRY_WINDOW_MS: '0',
        QUIRE_WEBHOOK_SECRET: 'w',
        QUIRE_ADMIN_TOKEN: 't'.repeat(16),
        QUIRE_MAX_BODY_BYTES: '65536',
        QUIRE_MAX_CONNECTIONS: '500',
        QUIRE_MAX_CONNECTIONS_PER_CLIENT: '0',
      },
      '/srv/site',
    );
    expect(c).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      secret: 's'.repeat(32),
      stateDir: path.resolve('/srv/site/state'),
      contentDir: '/abs/content',
      contentDirSet: true,
      distDir: path.resolve('/srv/site/out'),
      publicUrl: 'https://api.example.com/base',
      allowPrivateTargets: true,
      webhookTimeoutMs: 2500,
      publishRetryWindowMs: 0,
      webhookSecret: 'w',
      adminToken: 't'.repeat(16),
      maxBodyBytes: 65536,
      maxConnections: 500,
      maxConnectionsPerClient: 0,
    });
    expect(parseConfig({ QUIRE_ALLOW_PRIVATE_TARGETS: '0' }).allowPrivateTargets).toBe(false);
  });

  it('reads the push-hook secret of start --follow, and refuses a short one', () => {
    expect(parseConfig({ QUIRE_GIT_HOOK_SECRET: 'h'.repeat(16) }, '/srv/site').gitHookSecret).toBe('h'.repeat(16));
    expect(problemsOf({ QUIRE_GIT_HOOK_SECRET: 'short' })).toEqual([
      'QUIRE_GIT_HOOK_SECRET: must be at least 16 characters (use e.g. `openssl rand -hex 32`)',
    ]);
  });

  it('reads the bounds of branch previews: a count, and bytes that default to the follow bound', () => {
    expect(
      parseConfig({ QUIRE_PREVIEW_BRANCHES_MAX: '3', QUIRE_PREVIEW_BRANCH_MAX_BYTES: String(64 * 1024 ** 2) }, '/srv'),
    ).toMatchObject({ previewBranchesMax: 3, previewBranchMaxBytes: 64 * 1024 ** 2 });
    expect(parseConfig({ QUIRE_FOLLOW_MAX_BYTES: String(8 * 1024 ** 2) }, '/srv').previewBranchMaxBytes).toBe(
      8 * 1024 ** 2,
    );
    expect(problemsOf({ QUIRE_PREVIEW_BRANCHES_MAX: '0', QUIRE_PREVIEW_BRANCH_MAX_BYTES: '10' })).toEqual([
      'QUIRE_PREVIEW_BRANCHES_MAX: must be between 1 and 1000',
      'QUIRE_PREVIEW_BRANCH_MAX_BYTES: must be between 1048576 and 1125899906842624',
    ]);
  });

  it('treats an empty value as unset', () => {
    expect(parseConfig({ PORT: '', QUIRE_SECRET: '', QUIRE_PUBLIC_URL: '' }, '/srv/site')).toMatchObject({
      port: DEFAULT_PORT,
      secret: null,
      publicUrl: null,
    });
  });

  it('reports every bad setting at once, each with the reason', () => {
    expect(
      problemsOf({
        PORT: '80a',
        QUIRE_SECRET: 'short',
        QUIRE_PUBLIC_URL: 'api.example.com',
        QUIRE_ALLOW_PRIVATE_TARGETS: 'yes',
        QUIRE_WEBHOOK_TIMEOUT_MS: '50',
        QUIRE_PUBLISH_RETRY_WINDOW_MS: '-1',
        QUIRE_ADMIN_TOKEN: 'tiny',
      }),
    ).toEqual([
      'PORT: must be a whole number',
      'QUIRE_SECRET: must be at least 32 characters (use e.g. `openssl rand -hex 32`)',
      'QUIRE_PUBLIC_URL: must be an absolute URL such as https://api.example.com',
      'QUIRE_ALLOW_PRIVATE_TARGETS: must be 1 or 0',
      'QUIRE_WEBHOOK_TIMEOUT_MS: must be between 100 and 120000',
      'QUIRE_PUBLISH_RETRY_WINDOW_MS: must be a whole number of milliseconds',
      'QUIRE_ADMIN_TOKEN: must be at least 16 characters',
    ]);
    expect(problemsOf({ PORT: '65536' })).toEqual(['PORT: must be between 0 and 65535']);
    expect(problemsOf({ QUIRE_MAX_BODY_BYTES: '100', QUIRE_MAX_CONNECTIONS: '0' })).toEqual([
      'QUIRE_MAX_BODY_BYTES: must be between 1024 and 1073741824',
      'QUIRE_MAX_CONNECTIONS: must be between 1 and 1000000',
    ]);
    expect(problemsOf({ QUIRE_PUBLIC_URL: 'ftp://files.example.com' })).toEqual([
      'QUIRE_PUBLIC_URL: must use http or https',
    ]);
    expect(problemsOf({ QUIRE_PUBLIC_URL: 'https://api.example.com/?x=1' })).toEqual([
      'QUIRE_PUBLIC_URL: must not have a query or fragment',
    ]);
    expect(problemsOf({ QUIRE_PUBLIC_URL: 'https://api.example.com/#top' })).toEqual([
      'QUIRE_PUBLIC_URL: must not have a query or fragment',
    ]);
  });

  it('reads QUIRE_TRUST_PROXY: off, one hop, or a list of addresses and ranges', () => {
    const trust = (v: string): TrustProxy => parseConfig({ QUIRE_TRUST_PROXY: v }).trustProxy;
    const ranges = (v: string) => {
      const t = trust(v);
      return t.kind === 'addresses' ? t.ranges.map(([a, bits]) => `${a.toString()}/${bits}`) : t.kind;
    };
    expect(trust('0')).toEqual({ kind: 'none' });
    expect(trust('false')).toEqual({ kind: 'none' });
    expect(trust('1')).toEqual({ kind: 'first-hop' });
    expect(trust('true')).toEqual({ kind: 'first-hop' });
    expect(ranges('127.0.0.1')).toEqual(['127.0.0.1/32']);
    expect(ranges(' 10.0.0.0/8, ::1 ,fd00::/8')).toEqual(['10.0.0.0/8', '::1/128', 'fd00::/8']);
    // IPv4-mapped IPv6 is kept as IPv4, as peers are compared.
    expect(ranges('::ffff:192.0.2.0/120')).toEqual(['192.0.2.0/24']);
  });

  it('refuses a QUIRE_TRUST_PROXY that is not 1, 0 or addresses, naming the variable and the item', () => {
    const expected =
      'QUIRE_TRUST_PROXY: must be 1 (trust the first proxy hop), 0, or a comma-separated list of proxy addresses or CIDR ranges such as 127.0.0.1,10.0.0.0/8';
    expect(problemsOf({ QUIRE_TRUST_PROXY: 'yes' })).toEqual([`${expected} ("yes" is not one)`]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '2' })).toEqual([`${expected} ("2" is not one)`]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '127.1' })).toEqual([`${expected} ("127.1" is not one)`]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: 'nginx.internal' })).toEqual([`${expected} ("nginx.internal" is not one)`]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '10.0.0.1,' })).toEqual([`${expected} (an item of the list is empty)`]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '10.0.0.0/33' })).toEqual([
      `${expected} ("10.0.0.0/33": the prefix length is over 32)`,
    ]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '10.0.0.0/x' })).toEqual([
      `${expected} ("10.0.0.0/x" has no valid prefix length)`,
    ]);
    expect(problemsOf({ QUIRE_TRUST_PROXY: '10.0.0.0/8/8' })).toEqual([`${expected} ("10.0.0.0/8/8" is not one)`]);
  });
});
