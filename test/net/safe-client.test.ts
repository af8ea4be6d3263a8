// The client's behaviour on the wire, against a real HTTPS receiver with a throwaway CA. Loopback
// is allowed here (allowPrivate, as QUIRE_ALLOW_PRIVATE_TARGETS does in development); the guard
// itself is tested in safe-client-ssrf.test.ts.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALLOW_PRIVATE_WARNING,
  createSafeClient,
  type Resolver,
  type SafeClient,
  type SafeClientOptions,
} from '../../src/net/safe-client.ts';
import { issueCertificate, startHttpsReceiver } from '../helpers/https-receiver.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';

const receiver = useHttpsReceiver();
afterEach(() => receiver.respond(() => ({})));

const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const hookUrl = (path = '/hook') => receiver.urlFor('hooks.quire.test', path);

async function withClient<T>(run: (client: SafeClient) => Promise<T>, opts: SafeClientOptions = {}): Promise<T> {
  const client = createSafeClient({
    allowPrivate: true,
    ca: receiver.caPem,
    resolver: toLoopback,
    log: () => {},
    ...opts,
  });
  try {
    return await run(client);
  } finally {
    client.close();
  }
}

describe('allowPrivate', () => {
  it('is announced once, loudly, when the client is created, and only then', () => {
    const logs: string[] = [];
    createSafeClient({ allowPrivate: true, log: (m) => logs.push(m) }).close();
    createSafeClient({ allowPrivate: false, log: (m) => logs.push(m) }).close();
    expect(logs).toEqual([ALLOW_PRIVATE_WARNING]);
    expect(logs[0]).toMatch(/^WARNING: SSRF protection is OFF/);
  });
});

describe('a request that reaches the receiver', () => {
  it('POSTs the exact bytes with the headers and returns status, headers and body', async () => {
    receiver.respond(() => ({
      status: 201,
      headers: { 'x-reply': 'yes' },
      json: { url: 'https://site.example/a', id: 'a' },
    }));
    const body = Buffer.concat([Buffer.from('{"title":"Crème brûlée","n":1}'), Buffer.from([0x00, 0xff, 0x0d, 0x0a])]);
    const r = await withClient((c) =>
      c.request(hookUrl('/hook?site=a'), {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', 'X-Quire-Event': 'published', Host: 'evil.example' },
      }),
    );
    expect(r).toMatchObject({
      ok: true,
      status: 201,
      truncated: false,
      address: '127.0.0.1',
      headers: { 'x-reply': 'yes' },
    });
    expect(r.ok && JSON.parse(r.body.toString())).toEqual({ url: 'https://site.example/a', id: 'a' });
    expect(r.durationMs).toBeGreaterThan(0);
    const got = receiver.requests.at(-1)!;
    expect(got.rawBody.equals(body)).toBe(true);
    expect(got).toMatchObject({ method: 'POST', path: '/hook?site=a' });
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'x-quire-event': 'published',
      'content-length': String(body.length),
      'user-agent': 'Quire',
      host: `hooks.quire.test:${receiver.port}`, // the URL decides the Host, not a caller header
    });
    expect(got.headers['transfer-encoding']).toBeUndefined();
  });

  it('returns 4xx and 5xx as ordinary outcomes', async () => {
    receiver.respond((_req, i) => ({ status: i % 2 ? 503 : 401, body: 'no' }));
    const [a, b] = await withClient(async (c) => [await c.request(hookUrl()), await c.request(hookUrl())]);
    expect([a, b].map((r) => r?.ok && r.status).sort()).toEqual([401, 503]);
  });

  it('keeps the connection alive: two requests, one TCP connection, one lookup', async () => {
    let lookups = 0;
    const counting: Resolver = async () => (lookups++, [{ address: '127.0.0.1', family: 4 }]);
    const before = receiver.connections;
    const results = await withClient(
      async (c) => [
        await c.request(hookUrl(), { method: 'POST', body: 'one' }),
        await c.request(hookUrl(), { method: 'POST', body: 'two' }),
      ],
      {
        resolver: counting,
      },
    );
    expect(results.map((r) => r.ok && r.status)).toEqual([200, 200]);
    expect(results.map((r) => r.ok && r.address)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(receiver.connections - before).toBe(1);
    expect(lookups).toBe(1);
  });

  it('sends GET and HEAD without a body', async () => {
    receiver.respond(() => ({ status: 200, body: 'page' }));
    const [get, head] = await withClient(async (c) => [
      await c.request(hookUrl('/page')),
      await c.request(hookUrl('/page'), { method: 'HEAD' }),
    ]);
    expect(get).toMatchObject({ ok: true, status: 200 });
    expect(get?.ok && get.body.toString()).toBe('page');
    expect(head).toMatchObject({ ok: true, status: 200, body: Buffer.alloc(0) });
    expect(receiver.requests.slice(-2).map((q) => [q.method, q.rawBody.length, q.headers['content-length']])).toEqual([
      ['GET', 0, undefined],
      ['HEAD', 0, undefined],
    ]);
  });

  it('resolves with the system resolver by default (localhost, allowed here)', async () => {
    const r = await withClient((c) => c.request(`https://localhost:${receiver.port}/`), { resolver: undefined });
    expect(r).toMatchObject({ ok: true, status: 200 });
  });
});

describe('redirects', () => {
  it('are returned as the 3xx they are; nothing reaches the Location', async () => {
    const elsewhere = await startHttpsReceiver();
    try {
      const location = `${elsewhere.url}/steal`;
      receiver.respond(() => ({ status: 307, headers: { location } }));
      const before = receiver.requests.length;
      const r = await withClient((c) =>
        c.request(hookUrl(), { method: 'POST', body: 'secret', headers: { Authorization: 'Bearer s3cret' } }),
      );
      expect(r).toMatchObject({ ok: true, status: 307, headers: { location } });
      expect(receiver.requests.length - before).toBe(1);
      expect(elsewhere.connections).toBe(0);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('limits', () => {
  it('times out an attempt that gets no answer, close to timeoutMs', async () => {
    receiver.respond(() => ({ hang: true }));
    const r = await withClient((c) => c.request(hookUrl(), { method: 'POST', body: 'x', timeoutMs: 300 }));
    expect(r).toMatchObject({
      ok: false,
      kind: 'timeout',
      address: '127.0.0.1',
      message: expect.stringContaining('300 ms'),
    });
    expect(r.durationMs).toBeGreaterThanOrEqual(295);
    expect(r.durationMs).toBeLessThan(1500);
  });

  it('counts a slow answer against the same deadline', async () => {
    receiver.respond(() => ({ status: 200, delayMs: 1000 }));
    const r = await withClient((c) => c.request(hookUrl(), { timeoutMs: 300 }));
    expect(r).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('reads at most maxResponseBytes, then stops and flags truncated', async () => {
    receiver.respond(() => ({ status: 200, body: Buffer.alloc(2_000_000, 'a') }));
    const r = await withClient((c) => c.request(hookUrl(), { maxResponseBytes: 1000 }));
    expect(r).toMatchObject({ ok: true, status: 200, truncated: true });
    expect(r.ok && r.body.length).toBe(1000);
  });

  it('does not flag a body of exactly maxResponseBytes', async () => {
    receiver.respond(() => ({ status: 200, body: Buffer.alloc(1000, 'b') }));
    const r = await withClient((c) => c.request(hookUrl(), { maxResponseBytes: 1000 }));
    expect(r).toMatchObject({ ok: true, truncated: false });
    expect(r.ok && r.body.length).toBe(1000);
  });
});

describe('failures come back as kinds with plain-words messages', () => {
  it('tls: a client that does not trust the CA', async () => {
    const r = await withClient((c) => c.request(hookUrl()), { ca: undefined });
    expect(r).toMatchObject({ ok: false, kind: 'tls', address: '127.0.0.1' });
    expect(r.ok ? '' : r.message).toMatch(
      /^the TLS handshake with hooks\.quire\.test failed: .+ \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    );
  });

  it('tls: a certificate for another name', async () => {
    const r = await withClient((c) => c.request(receiver.urlFor('hooks.example.com')));
    expect(r).toMatchObject({
      ok: false,
      kind: 'tls',
      message: expect.stringContaining('(ERR_TLS_CERT_ALTNAME_INVALID)'),
    });
  });

  it('tls: an expired certificate', async () => {
    const day = 86_400_000;
    const expired = await startHttpsReceiver({
      certificate: await issueCertificate({
        notBefore: new Date(Date.now() - 30 * day),
        notAfter: new Date(Date.now() - day),
      }),
    });
    try {
      const r = await withClient((c) => c.request(expired.urlFor('hooks.quire.test')));
      expect(r).toMatchObject({
        ok: false,
        kind: 'tls',
        message: expect.stringContaining('has expired (CERT_HAS_EXPIRED)'),
      });
      expect(expired.requests).toEqual([]);
    } finally {
      await expired.close();
    }
  });

  it('refused: nothing listens on the port', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const r = await withClient((c) => c.request(`https://127.0.0.1:${port}/x`));
    expect(r).toMatchObject({ ok: false, kind: 'refused', message: '127.0.0.1 refused the connection (ECONNREFUSED)' });
  });

  it('reset: the receiver drops the connection', async () => {
    receiver.respond(() => ({ destroy: true }));
    const r = await withClient((c) => c.request(hookUrl(), { method: 'POST', body: 'x' }));
    expect(r).toMatchObject({ ok: false, kind: 'reset', message: expect.stringContaining('ECONNRESET') });
  });

  it('dns: the resolver fails', async () => {
    const failing: Resolver = async () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nx.quire.test'), { code: 'ENOTFOUND' }));
    const r = await withClient((c) => c.request(receiver.urlFor('nx.quire.test')), { resolver: failing });
    expect(r).toMatchObject({ ok: false, kind: 'dns', message: 'nx.quire.test could not be resolved (ENOTFOUND)' });
  });

  it.each([
    ['http://hooks.quire.test/x', 'not_https'],
    ['https://user:pw@hooks.quire.test/x', 'credentials'],
    ['hooks.quire.test/x', 'url_invalid'],
  ])('%s → %s, without a request', async (url, kind) => {
    const before = receiver.connections;
    const r = await withClient((c) => c.request(url));
    expect(r).toMatchObject({ ok: false, kind });
    expect(receiver.connections).toBe(before);
  });

  it('never throws, even for a header Node itself rejects', async () => {
    const r = await withClient((c) => c.request(hookUrl(), { headers: { 'x-bad': 'a\r\nInjected: 1' } }));
    expect(r).toMatchObject({ ok: false, kind: 'network', message: expect.stringContaining('ERR_INVALID_CHAR') });
  });

  it('a closed client sends nothing', async () => {
    const client = createSafeClient({ allowPrivate: true, ca: receiver.caPem, resolver: toLoopback, log: () => {} });
    client.close();
    const before = receiver.connections;
    expect(await client.request(hookUrl())).toMatchObject({
      ok: false,
      kind: 'network',
      message: 'the HTTP client has been closed',
    });
    expect(receiver.connections).toBe(before);
  });
});
