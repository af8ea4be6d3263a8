// Quire behind a real nginx with TLS, configured with the exact text docs/OPERATING.md gives (its
// marked blocks: Quire's settings and nginx's server blocks, with ports, certificate paths and
// the host name put in): sign in to the admin in Chromium, save a webhook, read the API with a
// client trusting the throwaway CA, and see that the visitor nginx names is the one throttled.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { substitute, testedBlock } from '../helpers/doc-blocks.ts';
import { issueCertificate } from '../helpers/https-receiver.ts';
import { findNginx, freePort, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, projectFolders, writeSite, type TempProject } from '../helpers/temp-content.ts';

const DOC = 'docs/OPERATING.md';
const ADMIN_TOKEN = 'admin-token-for-the-nginx-test-01';
const SECRET = 'receiver-secret-for-the-nginx-test';

let p: TempProject;
let dir: string;
const receiver = useHttpsReceiver();
let quire: Awaited<ReturnType<typeof startCli>>;
let nginx: RunningNginx;
let browser: Browser;
let caPem: string;
let base: string;
let httpsPort: number;
let httpPort: number;
let quirePort: number;

/** `KEY=value` lines of a documented environment block (comments and blank lines skipped). */
function envLines(block: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const m = /^([A-Z_]+)=(\S*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

beforeAll(async () => {
  const binary = findNginx();
  if (!binary) throw new Error('nginx is not installed: this test needs it (.ci/run installs nginx-light)');
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write(
    'one/articles/first.md',
    article(
      { title: 'The first article', status: 'published', publishedAt: '2026-05-01' },
      `Hello.\n\n${'A longer paragraph, so the body is stored compressed too.\n\n'.repeat(40)}`,
    ),
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-nginx-'));
  receiver.respond(() => ({ status: 200, json: { ok: true } }));

  // nginx's certificate from the test CA, for the name nginx is reached by.
  caPem = receiver.caPem;
  const leaf = await issueCertificate({ names: ['localhost'], ips: ['127.0.0.1'] });
  fs.mkdirSync(path.join(dir, 'tls'));
  fs.writeFileSync(path.join(dir, 'tls', 'fullchain.pem'), `${leaf.certPem.trim()}\n${caPem.trim()}\n`);
  fs.writeFileSync(path.join(dir, 'tls', 'privkey.pem'), leaf.keyPem, { mode: 0o600 });

  [httpsPort, httpPort] = [await freePort(), await freePort()];
  base = `https://localhost:${httpsPort}`;
  // Quire with the documented settings; the port it listens on goes into nginx's config.
  const documented = envLines(testedBlock(DOC, 'quire-env'));
  expect(documented).toMatchObject({
    QUIRE_PUBLIC_URL: 'https://quire.example.com',
    QUIRE_TRUST_PROXY: expect.any(String),
    PORT: '8787',
  });
  quire = await startCli(
    ['start'],
    {
      ...documented,
      QUIRE_PUBLIC_URL: base,
      PORT: '0',
      QUIRE_METRICS: '1',
      ...projectFolders(p),
      QUIRE_ADMIN_TOKEN: ADMIN_TOKEN,
      QUIRE_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
    },
    /Publishing app: \S+\/admin /,
  );
  quirePort = Number(/Listening on 127\.0\.0\.1:(\d+)/.exec(quire.output())![1]);

  const config = substitute(testedBlock(DOC, 'nginx'), {
    'listen 80;': `listen 127.0.0.1:${httpPort};`,
    'listen 443 ssl;': `listen 127.0.0.1:${httpsPort} ssl;`,
    '/etc/letsencrypt/live/quire.example.com/': `${dir}/tls/`,
    'http://127.0.0.1:8787': `http://127.0.0.1:${quirePort}`,
  });
  nginx = await startNginx(binary, dir, config, [httpsPort, httpPort]);

  // Chromium trusts this server's key, and only it (the flag takes base64 SHA-256 of the SPKI).
  const spki = new crypto.X509Certificate(leaf.certPem).publicKey.export({ type: 'spki', format: 'der' });
  const pin = crypto.createHash('sha256').update(spki).digest('base64');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await nginx?.stop();
  await quire?.stop();
  p?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's bytes as received (compressed ones are not decoded). */
  raw: Buffer;
}

/** A request through nginx's TLS port, trusting the throwaway CA (as `ca`, not by turning checks off). */
function viaNginx(
  pathname: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port: httpsPort,
        path: pathname,
        method: opts.method ?? 'GET',
        ca: caPem,
        agent: false,
        headers: { host: `localhost:${httpsPort}`, ...opts.headers },
        ...(opts.from ? { localAddress: opts.from } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body: raw.toString('utf8'), raw });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('Quire behind nginx with TLS, as docs/OPERATING.md configures it', { timeout: 120_000 }, () => {
  it('signs in to the Publishing app in Chromium over https, with a Secure cookie, and saves a webhook', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/admin`);
      expect(page.url()).toBe(`${base}/admin/sign-in`);
      await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/admin`);
      const [cookie] = (await context.cookies()).filter((c) => c.name === 'quire_admin');
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/admin' });

      await page.getByRole('link', { name: /Field Notes/ }).click();
      await page.waitForURL(`${base}/admin/sites/one/publishing`);
      expect(await page.locator('#api-base').textContent()).toBe(`${base}/v1`);
      await page.getByLabel('Webhook', { exact: false }).first().check();
      await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks/quire`);
      await page.getByLabel('Secret', { exact: true }).fill(SECRET);
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Webhook saved');
      await page.reload();
      expect(await page.getByLabel('Webhook URL').inputValue()).toBe(`${receiver.url}/hooks/quire`);
    } finally {
      await context.close();
    }
  });

  it('serves the Content API and health checks through nginx to a client trusting the CA', async () => {
    const key = /key: (pk_one\.\S+)/.exec(quire.output())![1]!;
    const list = await viaNginx('/v1/articles', { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body).articles.map((a: { slug: string }) => a.slug)).toEqual(['first']);
    expect((await viaNginx('/v1/articles')).status).toBe(401);
    expect((await viaNginx('/readyz')).status).toBe(200);
    // The server names itself by the public URL nginx answers at.
    expect(JSON.parse((await viaNginx('/openapi.json')).body).servers[0].url).toMatch(new RegExp(`^${base}`));
  });

  it('passes compressed answers through as Quire sent them: not compressed again, not decoded, ETag and Vary kept', async () => {
    const key = /key: (pk_one\.\S+)/.exec(quire.output())![1]!;
    const auth = { authorization: `Bearer ${key}` };
    const identity = await viaNginx('/v1/articles/first', { headers: auth });
    const direct = await fetch(`http://127.0.0.1:${quirePort}/v1/articles/first`, {
      headers: { ...auth, 'accept-encoding': 'identity' },
    });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.etag).toBe(direct.headers.get('etag'));
    const decode = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };
    for (const coding of ['br', 'gzip'] as const) {
      const reply = await viaNginx('/v1/articles/first', { headers: { ...auth, 'accept-encoding': coding } });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-encoding']).toBe(coding);
      expect(reply.headers.etag).toBe(`${identity.headers.etag!.slice(0, -1)}-${coding}"`);
      expect(reply.headers.vary).toBe('Accept-Encoding, Authorization');
      expect(decode[coding](reply.raw).equals(identity.raw)).toBe(true);
      const again = await viaNginx('/v1/articles/first', {
        headers: { ...auth, 'accept-encoding': coding, 'if-none-match': reply.headers.etag! },
      });
      expect(again.status).toBe(304);
    }
  });

  it('keeps /metrics to the machine: denied through nginx, served to a scraper on loopback', async () => {
    expect((await viaNginx('/metrics')).status).toBe(403);
    const direct = await fetch(`http://127.0.0.1:${quirePort}/metrics`);
    expect(direct.status).toBe(200);
  });

  it('redirects plain http to https', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: httpPort, path: '/admin', headers: { host: `localhost:${httpPort}` } }, resolve)
        .on('error', reject);
    });
    res.resume();
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('https://localhost/admin');
  });

  it('throttles the visitor nginx names, whatever X-Forwarded-For the visitor sends', async () => {
    const signIn = (token: string, from: string, spoofed: string) =>
      viaNginx('/admin/sign-in', {
        method: 'POST',
        from,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': spoofed },
        body: new URLSearchParams({ token }).toString(),
      });
    for (let i = 0; i < 10; i++) expect((await signIn(`wrong-${i}`, '127.0.0.2', `198.51.100.${i}`)).status).toBe(401);
    expect((await signIn(ADMIN_TOKEN, '127.0.0.2', '198.51.100.99')).status).toBe(429);
    expect((await signIn(ADMIN_TOKEN, '127.0.0.3', '198.51.100.1')).status).toBe(303);
    expect(nginx.errorLog()).not.toMatch(/\[(emerg|alert|crit)\]/);
  });
});
