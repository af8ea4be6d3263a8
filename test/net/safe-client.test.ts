import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeClient, type Resolver } from '../../src/net/safe-client.ts';
import { startHttpsReceiver, testCa, type HttpsReceiver } from '../helpers/https-receiver.ts';

let receiver: HttpsReceiver;
let ca: string;
beforeAll(async () => {
  ca = (await testCa()).caPem;
  receiver = await startHttpsReceiver();
});
afterAll(() => receiver.close());

const resolveTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));

describe('SSRF guard: refused without any connection attempt', () => {
  const mapped = ['127.0.0.1', '10.0.0.5', '192.168.0.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '64:ff9b::7f00:1'];

  it.each(mapped)('a name resolving to %s', async (address) => {
    const before = receiver.connections();
    const client = createSafeClient({ resolver: resolveTo(address), ca });
    try {
      const r = await client.request(`https://receiver.test:${receiver.port}/hook`, { method: 'POST', body: 'x' });
      expect(r).toMatchObject({ ok: false, kind: 'non_public' });
      expect(r.ok ? '' : r.message).toContain(address);
      expect(receiver.connections()).toBe(before);
    } finally {
      client.close();
    }
  });

  it('a name with one public and one private address (all must be public)', async () => {
    const client = createSafeClient({ resolver: resolveTo('93.184.215.14', '127.0.0.1'), ca });
    const r = await client.request(`https://receiver.test:${receiver.port}/hook`);
    expect(r).toMatchObject({ ok: false, kind: 'non_public' });
    client.close();
  });

  it.each(['127.0.0.1', '2130706433', '0x7f.1', '017700000001', '127.1', '[::1]', '[::ffff:7f00:1]'])('the IP literal %s', async (host) => {
    const before = receiver.connections();
    const client = createSafeClient({ ca });
    const r = await client.request(`https://${host}:${receiver.port}/hook`, { method: 'POST', body: 'x' });
    expect(r).toMatchObject({ ok: false, kind: 'non_public' });
    expect(receiver.connections()).toBe(before);
    client.close();
  });

  it('DNS rebinding: the address checked is the address connected to, on every new connection', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const client = createSafeClient({ resolver: rebinding, ca });
    const saveTime = await client.resolvePublic('receiver.test'); // what a save-time check sees
    expect(saveTime.ok).toBe(true);
    const before = receiver.connections();
    const r = await client.request(`https://receiver.test:${receiver.port}/hook`);
    expect(r).toMatchObject({ ok: false, kind: 'non_public' });
    expect(receiver.connections()).toBe(before);
    client.close();
  });

  it('resolvePublic explains refusals and DNS failures', async () => {
    const client = createSafeClient({ resolver: resolveTo('10.1.2.3') });
    expect(await client.resolvePublic('hooks.example.com')).toMatchObject({ ok: false, kind: 'non_public', message: expect.stringMatching(/hooks\.example\.com resolves to 10\.1\.2\.3, a private address/) });
    const failing = createSafeClient({ resolver: async () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })) });
    expect(await failing.resolvePublic('nx.example.com')).toMatchObject({ ok: false, kind: 'dns' });
    expect(await failing.request('https://nx.example.com/x')).toMatchObject({ ok: false, kind: 'dns' });
    client.close();
    failing.close();
  });
});

describe('requests (loopback allowed for the test, as QUIRE_ALLOW_PRIVATE_TARGETS does)', () => {
  const logs: string[] = [];
  const client = () => createSafeClient({ allowPrivate: true, ca, log: (m) => logs.push(m), resolver: resolveTo('127.0.0.1') });

  it('warns loudly when private targets are allowed', () => {
    client().close();
    expect(logs.join('\n')).toMatch(/WARNING: QUIRE_ALLOW_PRIVATE_TARGETS/);
  });

  it('POSTs the exact bytes with the headers, returns status and body, and reuses the connection', async () => {
    receiver.respond(() => ({ status: 201, body: '{"url":"https://x.example/a","id":"a"}' }));
    const c = client();
    const before = receiver.connections();
    const body = Buffer.from('{"b": "é"}');
    const r1 = await c.request(`https://receiver.test:${receiver.port}/hook?q=1`, { method: 'POST', body, headers: { 'X-Test': '1' } });
    const r2 = await c.request(`https://receiver.test:${receiver.port}/hook?q=2`, { method: 'POST', body });
    c.close();
    expect(r1).toMatchObject({ ok: true, status: 201, truncated: false, address: '127.0.0.1' });
    expect(r1.ok && r1.body.toString()).toBe('{"url":"https://x.example/a","id":"a"}');
    expect(r2.ok).toBe(true);
    const got = receiver.requests.at(-2)!;
    expect(got.rawBody.equals(body)).toBe(true);
    expect(got).toMatchObject({ method: 'POST', path: '/hook?q=1', headers: { 'x-test': '1', host: `receiver.test:${receiver.port}` } });
    expect(receiver.connections() - before).toBe(1);
  });

  it('never follows a redirect: the 3xx comes back and the target receives nothing', async () => {
    const target = await startHttpsReceiver();
    receiver.respond(() => ({ status: 307, headers: { location: `${target.origin}/steal` } }));
    const c = client();
    const r = await c.request(`https://receiver.test:${receiver.port}/hook`, { method: 'POST', body: 'secret', headers: { Authorization: 'Bearer s' } });
    c.close();
    expect(r).toMatchObject({ ok: true, status: 307 });
    expect(target.requests).toHaveLength(0);
    expect(target.connections()).toBe(0);
    await target.close();
  });

  it('times out an attempt that gets no answer', async () => {
    receiver.respond(() => ({ hang: true }));
    const c = client();
    const t = performance.now();
    const r = await c.request(`https://receiver.test:${receiver.port}/hook`, { timeoutMs: 300 });
    c.close();
    expect(r).toMatchObject({ ok: false, kind: 'timeout' });
    expect(performance.now() - t).toBeLessThan(5000);
  });

  it('caps the response body', async () => {
    receiver.respond(() => ({ status: 200, body: Buffer.alloc(200_000, 'a') }));
    const c = client();
    const r = await c.request(`https://receiver.test:${receiver.port}/hook`, { maxResponseBytes: 1000 });
    c.close();
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(r.ok && r.body.length).toBe(1000);
  });

  it('reports TLS failures with their code, refused connections and resets', async () => {
    receiver.respond(() => ({ status: 200 }));
    const untrusting = createSafeClient({ allowPrivate: true, resolver: resolveTo('127.0.0.1') });
    const tls = await untrusting.request(`https://receiver.test:${receiver.port}/hook`);
    expect(tls).toMatchObject({ ok: false, kind: 'tls' });
    expect(tls.ok ? '' : tls.message).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
    const wrongName = createSafeClient({ allowPrivate: true, ca, resolver: resolveTo('127.0.0.1') });
    const alt = await wrongName.request(`https://not-in-cert.test:${receiver.port}/hook`);
    expect(alt).toMatchObject({ ok: false, kind: 'tls', message: expect.stringMatching(/ALTNAME/) });
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await wrongName.request(`https://127.0.0.1:${port}/x`)).toMatchObject({ ok: false, kind: 'refused' });
    receiver.respond(() => ({ destroy: true }));
    expect(await wrongName.request(`https://receiver.test:${receiver.port}/x`)).toMatchObject({ ok: false, kind: 'reset' });
    untrusting.close();
    wrongName.close();
  });
});
