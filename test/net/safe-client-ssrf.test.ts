// The SSRF guard against a real HTTPS receiver on 127.0.0.1: refused targets must produce no TCP
// connection at all. Each refusal has a control case that reaches the same receiver once the
// guard is lifted, so a counter stuck at zero cannot pass for a guard.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSafeClient, type Resolver, type SafeClient } from '../../src/net/safe-client.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';

const receiver = useHttpsReceiver({ handler: () => ({ status: 200, body: 'reached' }) });

/** A resolver that always answers `addresses` and remembers what it was asked. */
function resolveTo(...addresses: string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string) => {
    calls.push(host);
    return addresses.map((address) => ({ address, family: net.isIPv6(address) ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolver, { calls });
}

async function withClient<T>(
  opts: Parameters<typeof createSafeClient>[0],
  run: (client: SafeClient) => Promise<T>,
): Promise<T> {
  const client = createSafeClient({ ca: receiver.caPem, log: () => {}, ...opts });
  try {
    return await run(client);
  } finally {
    client.close();
  }
}

describe('a name that resolves to a non-public address is refused before connecting', () => {
  it.each([
    '127.0.0.1',
    '::ffff:127.0.0.1',
    '::1',
    '10.0.0.5',
    '172.16.3.4',
    '192.168.0.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '198.18.0.1',
    'fd00::1',
    'fe80::1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ])('victim.quire.test → %s', async (address) => {
    const before = receiver.connections;
    const r = await withClient({ resolver: resolveTo(address) }, (c) =>
      c.request(receiver.urlFor('victim.quire.test', '/hook'), { method: 'POST', body: 'secret payload' }),
    );
    expect(r).toMatchObject({ ok: false, kind: 'non_public' });
    expect(r.ok ? '' : r.message).toMatch(
      new RegExp(
        `^victim\\.quire\\.test resolves to ${address.replace(/[.]/g, '\\.')}, .+; webhook targets must be public$`,
      ),
    );
    expect(receiver.connections).toBe(before);
  });

  it.each([
    [['93.184.215.14', '127.0.0.1']],
    [['127.0.0.1', '93.184.215.14']],
    [['2606:4700:4700::1111', '::ffff:127.0.0.1']],
  ])('a mixed answer %j is refused as a whole', async (addresses) => {
    const before = receiver.connections;
    const r = await withClient({ resolver: resolveTo(...addresses) }, (c) =>
      c.request(receiver.urlFor('victim.quire.test')),
    );
    expect(r).toMatchObject({ ok: false, kind: 'non_public' });
    expect(receiver.connections).toBe(before);
  });

  it('control: the same name and receiver are reached once allowPrivate lifts the guard', async () => {
    const before = receiver.connections;
    const r = await withClient({ allowPrivate: true, resolver: resolveTo('127.0.0.1') }, (c) =>
      c.request(receiver.urlFor('victim.quire.test')),
    );
    expect(r).toMatchObject({ ok: true, status: 200, address: '127.0.0.1' });
    expect(receiver.connections).toBe(before + 1);
  });
});

describe('an IP-literal host is refused before connecting (and without DNS)', () => {
  const port = () => receiver.port;
  it.each([
    '127.0.0.1',
    '2130706433',
    '0x7f.1',
    '017700000001',
    '127.1',
    '[::1]',
    '[::ffff:7f00:1]',
    'localhost',
    'victim.localhost',
  ])('https://%s:<port>/', async (host) => {
    const resolver = resolveTo('127.0.0.1');
    const before = receiver.connections;
    const r = await withClient({ resolver }, (c) =>
      c.request(`https://${host}:${port()}/hook`, { method: 'POST', body: 'x' }),
    );
    expect(r).toMatchObject({
      ok: false,
      kind: 'non_public',
      message: expect.stringContaining('webhook targets must be public'),
    });
    expect(receiver.connections).toBe(before);
    expect(resolver.calls).toEqual([]);
  });

  it.each(['127.0.0.1', '2130706433', '0x7f.1'])(
    'control: https://%s:<port>/ does reach the receiver with allowPrivate',
    async (host) => {
      const before = receiver.connections;
      const r = await withClient({ allowPrivate: true }, (c) => c.request(`https://${host}:${port()}/hook`));
      expect(r).toMatchObject({ ok: true, status: 200, address: '127.0.0.1' });
      expect(receiver.connections).toBe(before + 1);
    },
  );
});

describe('DNS rebinding', () => {
  it('an answer that was public at save time but private at send time is refused at connect time', async () => {
    const answers = ['93.184.215.14', '127.0.0.1'];
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    const before = receiver.connections;
    await withClient({ resolver: rebinding }, async (c) => {
      expect(await c.resolvePublic('rebind.quire.test')).toEqual({ ok: true, addresses: ['93.184.215.14'] });
      const r = await c.request(receiver.urlFor('rebind.quire.test', '/hook'), { method: 'POST', body: 'x' });
      expect(r).toMatchObject({
        ok: false,
        kind: 'non_public',
        message: expect.stringContaining('resolves to 127.0.0.1'),
      });
    });
    expect(calls).toBe(2); // the request did its own lookup instead of trusting the earlier one
    expect(receiver.connections).toBe(before);
  });

  it('each new connection looks up again and connects to exactly the address that lookup returned', async () => {
    // 127.0.0.2 is loopback too, but the receiver listens on 127.0.0.1 only: a connection that
    // reused the first answer would succeed; one that uses the new answer is refused.
    const answers = ['127.0.0.1', '127.0.0.2'];
    let calls = 0;
    const rebinding: Resolver = async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }];
    receiver.respond(() => ({ status: 200, headers: { connection: 'close' } })); // no keep-alive
    try {
      await withClient({ allowPrivate: true, resolver: rebinding }, async (c) => {
        const before = receiver.requests.length;
        expect(await c.request(receiver.urlFor('rebind.quire.test'))).toMatchObject({ ok: true, address: '127.0.0.1' });
        const second = await c.request(receiver.urlFor('rebind.quire.test'), { timeoutMs: 2000 });
        expect(second).toMatchObject({ ok: false, kind: 'refused', message: expect.stringContaining('ECONNREFUSED') });
        expect(calls).toBe(2);
        expect(receiver.requests.length).toBe(before + 1);
      });
    } finally {
      receiver.respond(() => ({ status: 200, body: 'reached' }));
    }
  });
});

describe('resolvePublic (save-time validation of a host)', () => {
  it('accepts public names and literals, with or without IPv6 brackets', async () => {
    await withClient({ resolver: resolveTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c') }, async (c) => {
      expect(await c.resolvePublic('hooks.example.com')).toEqual({
        ok: true,
        addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      });
      expect(await c.resolvePublic('8.8.8.8')).toEqual({ ok: true, addresses: ['8.8.8.8'] });
      expect(await c.resolvePublic('[2606:4700:4700::1111]')).toEqual({
        ok: true,
        addresses: ['2606:4700:4700::1111'],
      });
    });
  });

  it('refuses private answers, local names and literals, saying why', async () => {
    const resolver = resolveTo('10.0.0.5');
    await withClient({ resolver }, async (c) => {
      expect(await c.resolvePublic('example.test')).toEqual({
        ok: false,
        kind: 'non_public',
        message: 'example.test resolves to 10.0.0.5, a private address; webhook targets must be public',
      });
      expect(await c.resolvePublic('[::1]')).toMatchObject({
        ok: false,
        kind: 'non_public',
        message: '::1 is a loopback address; webhook targets must be public',
      });
      expect(await c.resolvePublic('localhost')).toMatchObject({ ok: false, kind: 'non_public' });
      expect(await c.resolvePublic('2130706433')).toMatchObject({ ok: false, kind: 'non_public' });
    });
    expect(resolver.calls).toEqual(['example.test']);
  });

  it('reports resolver failures and empty answers as dns', async () => {
    const failing: Resolver = async () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await withClient({ resolver: failing }, async (c) => {
      expect(await c.resolvePublic('nx.example.com')).toEqual({
        ok: false,
        kind: 'dns',
        message: 'nx.example.com could not be resolved (ENOTFOUND)',
      });
    });
    await withClient({ resolver: resolveTo() }, async (c) => {
      expect(await c.resolvePublic('empty.example.com')).toMatchObject({ ok: false, kind: 'dns' });
    });
  });
});
