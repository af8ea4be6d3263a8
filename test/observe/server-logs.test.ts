// A real `quire start` with JSON logs and metrics on: every request and delivery attempt is one
// line, and no line ever holds a site key, a webhook secret or the admin token — sent in `?key=`,
// in a percent-encoded name, in Authorization, or in a form. Real HTTPS receiver, real socket.
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, signIn } from '../helpers/admin-server.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = 'receiver-shared-secret-for-logs-0123456789';
const receiver = useHttpsReceiver();
let p: TempProject;

afterEach(() => p?.cleanup());

const envFor = (extra: Record<string, string>) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  NODE_EXTRA_CA_CERTS: receiver.caFile,
  QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
  PORT: '0',
  ...extra,
});

interface LogLine {
  type: string;
  [field: string]: unknown;
}

describe('server logs and metrics', { timeout: 90_000 }, () => {
  it('logs one JSON line per request and attempt, masks keys, and never prints a secret', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/hello.md', article({ title: 'Hello', status: 'published' }));
    const set = await runCli(
      ['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hook`, '--secret', SECRET],
      envFor({}),
    );
    expect(set.code, set.stderr).toBe(0);

    const server = await startCli(
      ['start'],
      envFor({ QUIRE_LOG_FORMAT: 'json', QUIRE_METRICS: '1' }),
      /Publishing app: (http:\/\/\S+)\/admin/,
    );
    try {
      const base = server.match[1]!.replace('localhost', '127.0.0.1');
      const key = /key: (\S+)/.exec(server.output())![1]!;
      const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
      expect((await get(`/v1/articles?key=${key}`)).status).toBe(200);
      expect((await get(`/v1/articles/hello?limit=1&key=${encodeURIComponent(key)}&x=%1b[31m`)).status).toBe(200);
      expect((await get(`/v1/articles?%6Bey=${key}`)).status).toBe(200);
      expect((await get('/v1/articles/hello', { authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await get(`/v1/articles/nope?token=${key}`)).status).toBe(401);
      expect((await get('/healthz')).status).toBe(200);
      const ready = await get('/readyz');
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true });
      const admin = await signIn(base);
      expect((await admin.post('/admin/sites/one/test', {})).status).toBe(303);
      await expect.poll(() => receiver.requests.length).toBe(1);

      const metrics = await (await get('/metrics')).text();
      expect(metrics).toMatch(/^quire_http_requests_total\{route="\/v1\/articles",method="GET",status="200"\} 2$/m);
      expect(metrics).toMatch(
        /^quire_http_requests_total\{route="\/v1\/articles\/:slug",method="GET",status="200"\} 2$/m,
      );
      expect(metrics).toMatch(
        /^quire_http_requests_total\{route="\/v1\/articles\/:slug",method="GET",status="401"\} 1$/m,
      );
      expect(metrics).toMatch(/^quire_http_request_duration_seconds_bucket\{le="\+Inf",route="\/v1\/articles"\} 2$/m);
      expect(metrics).toMatch(/^quire_builds_total\{result="ok"\} 1$/m);
      expect(metrics).toMatch(/^quire_delivery_attempts_total\{result="delivered"\} 1$/m);
      expect(metrics).toMatch(/^quire_deliveries_pending 0$/m);
      expect(metrics).toMatch(/^quire_deliveries_oldest_pending_age_seconds 0$/m);
      // Label values come from route patterns: no slug, key or raw path becomes a series.
      expect(metrics).not.toMatch(/hello|nope|key=/);
    } finally {
      await server.stop();
    }

    const output = server.output();
    // The start-up banner prints each site's key for its owner; no log line may.
    const logged = output.split('\n').filter((l) => !/^\s+key: |curl -H "Authorization/.test(l));
    const key = /key: (\S+)/.exec(output)![1]!;
    for (const secret of [key, encodeURIComponent(key), SECRET, ADMIN_TOKEN]) {
      expect(logged.filter((l) => l.includes(secret))).toEqual([]);
    }
    expect(output).not.toContain('\u001b');
    const lines = logged.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
    const requests = lines.filter((l) => l.type === 'request');
    expect(requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/v1/articles?key=***', status: 200, site: 'one' }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({ path: '/v1/articles/hello?limit=1&key=***&x=%1b[31m', status: 200, site: 'one' }),
    );
    expect(requests).toContainEqual(expect.objectContaining({ path: '/v1/articles?%6Bey=***', site: 'one' }));
    expect(requests).toContainEqual(
      expect.objectContaining({ path: '/v1/articles/nope?token=***', status: 401, site: null }),
    );
    expect(requests).toContainEqual(expect.objectContaining({ path: '/admin/sign-in', method: 'POST', status: 303 }));
    // The last request's line too: the logger is flushed before the process exits.
    expect(requests.at(-1)).toMatchObject({ path: '/metrics', status: 200 });
    const article200 = requests.find((l) => l.path === '/v1/articles/hello' && l.status === 200)!;
    expect(article200).toMatchObject({ site: 'one' });
    expect(article200.bytes).toBeGreaterThan(100);
    expect(typeof article200.ms).toBe('number');
    expect(typeof article200.time).toBe('string');
    const deliveries = lines.filter((l) => l.type === 'delivery');
    expect(deliveries).toEqual([
      expect.objectContaining({
        site: 'one',
        slug: 'hello',
        event: 'updated',
        attempt: 1,
        result: 'delivered',
        status: 200,
        error: null,
      }),
    ]);
  });

  it('serves no /metrics unless QUIRE_METRICS=1, and writes text lines by default', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/hello.md', article({ title: 'Hello', status: 'published' }));
    const server = await startCli(['start'], envFor({}), /Publishing app: (http:\/\/\S+)\/admin/);
    try {
      const base = server.match[1]!.replace('localhost', '127.0.0.1');
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      await expect.poll(() => server.output()).toMatch(/^\S+Z GET \/metrics 404 [\d.]+ms \d+B$/m);
    } finally {
      await server.stop();
    }
  });
});
