// The Host check: a DNS-rebinding page names its own host, and is answered 421 before any route
// (health, metrics, the admin app); the server's own names, and what a trusted proxy forwards,
// are answered. Which names each setting allows; then a real server on loopback, told peers
// apart by their source address (127.0.0.1 is the proxy; 127.0.0.5 a client reaching it directly);
// then `quire start` as users run it.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerRouter } from '../../src/app/server-router.ts';
import { parseTrustProxy } from '../../src/config/trust-proxy.ts';
import { openLocalSnapshot } from '../../src/snapshot/local-snapshot.ts';
import { createKeyring } from '../../src/keys/api-keys.ts';
import { allowedHosts, allowedHostsOnly, isAllowedHost, type AllowedHosts } from '../../src/server/host-check.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const names = (allowed: AllowedHosts, hosts: string[], fromProxy = false) =>
  hosts.filter((h) => isAllowedHost(allowed, h, fromProxy));

describe('which hosts are answered', () => {
  it('with QUIRE_PUBLIC_URL: its host, and the loopback names with the port listened on', () => {
    const allowed = allowedHosts({ publicUrl: 'https://quire.example.com', listenHost: '0.0.0.0', port: 8787 })!;
    const good = [
      'quire.example.com',
      'QUIRE.Example.com',
      'quire.example.com:443',
      'localhost:8787',
      '127.0.0.1:8787',
      '127.0.0.5:8787',
      '[::1]:8787',
    ];
    const bad = [
      'evil.example',
      'evil.example:8787',
      'quire.example.com:8443',
      'quire.example.com.evil.example',
      'localhost',
      'localhost:9999',
      '127.0.0.1',
      '10.0.0.5:8787',
      'localhost.evil.example:8787',
      '',
      'a b',
      'quire.example.com@evil.example',
    ];
    expect(names(allowed, [...good, ...bad])).toEqual(good);
    // A trusted proxy's forwarded host is held to the same names.
    expect(names(allowed, ['quire.example.com', 'evil.example'], true)).toEqual(['quire.example.com']);
  });

  it('a public URL with a port is answered with that port only', () => {
    const allowed = allowedHosts({ publicUrl: 'http://quire.test:8080', listenHost: '127.0.0.1', port: 8787 })!;
    expect(
      names(allowed, ['quire.test:8080', 'quire.test', 'quire.test:80', 'localhost:8787', 'localhost:8080']),
    ).toEqual(['quire.test:8080', 'localhost:8787']);
  });

  it('on loopback without a public URL: the loopback names, and what a trusted proxy forwards', () => {
    for (const listenHost of ['127.0.0.1', '127.0.0.5', '::1', 'localhost', '::ffff:127.0.0.1']) {
      const allowed = allowedHosts({ publicUrl: null, listenHost, port: 8787 });
      expect(allowed, listenHost).not.toBeNull();
      expect(
        names(allowed!, ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'evil.example:8787', 'quire.test']),
      ).toEqual(['localhost:8787', '127.0.0.1:8787', '[::1]:8787']);
      expect(isAllowedHost(allowed!, 'quire.test', true)).toBe(true);
    }
    const onPort80 = allowedHosts({ publicUrl: null, listenHost: '127.0.0.1', port: 80 })!;
    expect(names(onPort80, ['localhost', 'localhost:80', 'localhost:8787'])).toEqual(['localhost', 'localhost:80']);
  });

  it('beyond loopback without a public URL: any host (nothing to hold it to)', () => {
    for (const listenHost of ['0.0.0.0', '::', '192.0.2.10'])
      expect(allowedHosts({ publicUrl: null, listenHost, port: 8787 }), listenHost).toBeNull();
  });
});

interface Reply {
  status: number;
  type: string | undefined;
  body: string;
}

/** A GET to the server on 127.0.0.1 from `from` (a loopback source address), naming `host`. */
function get(port: number, pathname: string, headers: Record<string, string>, from = '127.0.0.5'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: pathname, localAddress: from, agent: false, headers },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the check in front of every route', () => {
  let dir: string;
  let server: RunningServer;
  let port: number;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-host-'));
    const store = openLocalSnapshot(dir, path.join(dir, '.quire'));
    const keyring = createKeyring('test-secret-0123456789abcdef0123456789abcdef', { generationOf: () => 1 });
    const admin = new Hono();
    admin.get('/sign-in', (c) => c.text('sign in'));
    const trust = parseTrustProxy('127.0.0.1');
    // The port is known once the server listens; the app is given to it after.
    let allowed: AllowedHosts | null = null;
    const app = createServerRouter({
      api: { store, keyring, publicUrl: 'https://quire.test' },
      admin: { app: admin },
      hostCheck: (c, next) => allowedHostsOnly(allowed!, trust)(c, next),
    });
    server = await listen(app, 0, '127.0.0.1');
    port = server.port;
    allowed = allowedHosts({ publicUrl: 'https://quire.test', listenHost: '127.0.0.1', port });
  });

  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers a host that is not the server's 421 HOST_NOT_ALLOWED, in the API's error shape, on every route", async () => {
    for (const pathname of ['/healthz', '/readyz', '/metrics', '/v1/articles', '/admin/sign-in', '/no-such-route']) {
      const reply = await get(port, pathname, { host: `evil.example:${port}` });
      expect(reply.status, pathname).toBe(421);
      expect(reply.type).toMatch(/^application\/json/);
      expect(JSON.parse(reply.body)).toEqual({
        error: { status: 421, code: 'HOST_NOT_ALLOWED', message: expect.stringContaining('"evil.example:') },
      });
    }
  });

  it('answers its own names', async () => {
    for (const host of ['quire.test', `localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await get(port, '/healthz', { host })).status, host).toBe(200);
      expect((await get(port, '/admin/sign-in', { host })).body, host).toBe('sign in');
    }
  });

  it('reads X-Forwarded-Host from a trusted proxy only, and holds it to the same names', async () => {
    const viaProxy = (forwarded: string) =>
      get(port, '/healthz', { host: `127.0.0.1:${port}`, 'x-forwarded-host': forwarded }, '127.0.0.1');
    expect((await viaProxy('quire.test')).status).toBe(200);
    expect((await viaProxy('evil.example')).status).toBe(421);
    // From anyone else it is the sender's own word: the Host decides.
    expect((await get(port, '/healthz', { host: 'evil.example', 'x-forwarded-host': 'quire.test' })).status).toBe(421);
    expect((await get(port, '/healthz', { host: 'quire.test', 'x-forwarded-host': 'evil.example' })).status).toBe(200);
  });

  it('lets a request without a Host header through (HTTP/1.0 health checks send none; browsers always do)', async () => {
    expect(await rawRequest(port, 'GET /healthz HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });
});

/** Raw request bytes (e.g. without a Host header); what came back once the server closes. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
    socket.write(text);
  });
}

describe("quire start on loopback with metrics on (a developer's machine)", () => {
  let p: TempProject;
  let quire: Awaited<ReturnType<typeof startCli>>;
  let port: number;

  beforeAll(async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
    quire = await startCli(
      ['start'],
      {
        QUIRE_CONTENT_DIR: p.contentDir,
        QUIRE_DIST_DIR: p.distDir,
        QUIRE_STATE_DIR: p.stateDir,
        QUIRE_METRICS: '1',
        PORT: '0',
      },
      /Content API on http:\/\/localhost:(\d+)\/v1[\s\S]*Publishing app: \S+\/admin/,
    );
    port = Number(quire.match[1]);
  }, 60_000);

  afterAll(async () => {
    await quire?.stop();
    p?.cleanup();
  });

  it('says at start which hosts it answers', () => {
    expect(quire.output()).toContain(`Hosts: localhost, 127.0.0.1 and [::1] on port ${port}; others are answered 421`);
  });

  it('does not answer a rebound name: /metrics, /healthz and the admin are 421', async () => {
    for (const pathname of ['/metrics', '/healthz', '/admin/sign-in']) {
      expect((await get(port, pathname, { host: `rebind.evil.example:${port}` })).status, pathname).toBe(421);
    }
  });

  it('answers localhost and 127.0.0.1 with its port', async () => {
    expect((await get(port, '/metrics', { host: `localhost:${port}` })).status).toBe(200);
    expect((await get(port, '/healthz', { host: `127.0.0.1:${port}` })).status).toBe(200);
  });
});
