// One client holding many slow or half-open connections must not starve the others: a real
// server on loopback, clients told apart by their loopback source address (127.0.0.2, .3, …).
import net from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/config/trust-proxy.ts';
import { connectionCap, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../../src/server/connection-limits.ts';
import { listen, type RunningServer } from '../../src/server/serve.ts';

let running: RunningServer | null = null;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await running?.close();
  running = null;
});

async function start(limits: Partial<ConnectionLimits>): Promise<number> {
  const app = new Hono();
  app.get('/', (c) => c.text('ok'));
  running = await listen(app, 0, '127.0.0.1', { ...DEFAULT_CONNECTION_LIMITS, ...limits });
  return running.port;
}

interface Conn {
  socket: net.Socket;
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

/** A connection from `from` that sends `first` and then whatever the test writes. */
function connect(port: number, from: string, first = ''): Conn {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let data = '';
  let closed = false;
  socket.on('data', (d) => (data += d.toString()));
  socket.on('error', () => {}); // a refused connection is reset: that is what is being tested
  if (first) socket.write(first);
  return {
    socket,
    received: () => data,
    closed: new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve()))),
    isClosed: () => closed,
  };
}

/** Waits until `done()` holds or `withinMs` passes; the caller asserts afterwards. */
async function waitFor(done: () => boolean, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** A complete GET from `from`, answered over a fresh connection. */
async function getFrom(port: number, from: string): Promise<string> {
  const conn = connect(port, from, 'GET / HTTP/1.1\r\nHost: quire.test\r\nConnection: close\r\n\r\n');
  await waitFor(() => conn.isClosed(), 5000);
  return conn.received();
}

const HALF_A_REQUEST = 'GET / HTTP/1.1\r\nHost: quire.test\r\n';

describe('connection limits', () => {
  it("caps one client's open connections, and another client is still answered", async () => {
    const port = await start({
      maxPerClient: 5,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 20_000,
      idleTimeoutMs: 20_000,
    });
    const slow = Array.from({ length: 30 }, () => connect(port, '127.0.0.2', HALF_A_REQUEST));
    await waitFor(() => slow.filter((c) => c.isClosed()).length >= 25, 5000);
    expect(slow.filter((c) => c.isClosed())).toHaveLength(25);

    expect(await getFrom(port, '127.0.0.3')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nok$/);
    // The slow client's five are still open: the cap refuses, it does not evict.
    expect(slow.filter((c) => !c.isClosed())).toHaveLength(5);
  });

  it("does not cap a trusted proxy per client: it carries every visitor's connections", async () => {
    const port = await start({
      maxPerClient: 3,
      trustProxy: parseTrustProxy('127.0.0.2'),
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 20_000,
      idleTimeoutMs: 20_000,
    });
    const proxy = Array.from({ length: 10 }, () => connect(port, '127.0.0.2', HALF_A_REQUEST));
    const direct = Array.from({ length: 10 }, () => connect(port, '127.0.0.3', HALF_A_REQUEST));
    await waitFor(() => direct.filter((c) => c.isClosed()).length >= 7, 5000);
    expect(direct.filter((c) => c.isClosed())).toHaveLength(7);
    expect(await getFrom(port, '127.0.0.2')).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(proxy.filter((c) => c.isClosed())).toHaveLength(0);
  });

  it('keeps the total below its cap whoever connects', async () => {
    const port = await start({
      maxConnections: 6,
      maxPerClient: 4,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 20_000,
      idleTimeoutMs: 20_000,
    });
    const first = Array.from({ length: 4 }, () => connect(port, '127.0.0.2', HALF_A_REQUEST));
    await new Promise<void>((resolve) => first[3]!.socket.once('connect', () => resolve()));
    const second = Array.from({ length: 4 }, () => connect(port, '127.0.0.3', HALF_A_REQUEST));
    await waitFor(() => second.filter((c) => c.isClosed()).length >= 2, 5000);
    const open = await new Promise<number>((resolve, reject) =>
      running!.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );
    expect(open).toBe(6);
    expect(first.filter((c) => c.isClosed())).toHaveLength(0);
    expect(second.filter((c) => c.isClosed())).toHaveLength(2);
  });

  it('closes a connection that sends its headers too slowly, one that sends nothing, and an idle kept-alive one', async () => {
    const port = await start({
      headersTimeoutMs: 300,
      requestTimeoutMs: 1000,
      idleTimeoutMs: 600,
      keepAliveTimeoutMs: 200,
    });
    const dribbling = connect(port, '127.0.0.2', 'GET / HTTP/1.1\r\n');
    const drip = setInterval(() => dribbling.isClosed() || dribbling.socket.write('X-Slow: 1\r\n'), 50);
    const silent = connect(port, '127.0.0.3');
    const keptAlive = connect(port, '127.0.0.4', 'GET / HTTP/1.1\r\nHost: quire.test\r\n\r\n');
    try {
      await waitFor(() => dribbling.isClosed() && silent.isClosed() && keptAlive.isClosed(), 5000);
    } finally {
      clearInterval(drip);
    }
    expect(dribbling.isClosed()).toBe(true);
    expect(dribbling.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(silent.isClosed()).toBe(true);
    expect(keptAlive.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(keptAlive.isClosed()).toBe(true);
  });
});

describe('connectionCap', () => {
  it("stays below the open-file limit, keeping room for the process's own files", () => {
    expect(connectionCap(null, null)).toBe(DEFAULT_CONNECTION_LIMITS.maxConnections);
    expect(connectionCap(null, 20_000)).toBe(DEFAULT_CONNECTION_LIMITS.maxConnections);
    expect(connectionCap(50_000, 20_000)).toBe(20_000 - 256);
    expect(connectionCap(null, 1024)).toBe(1024 - 256);
    expect(connectionCap(100, 1024)).toBe(100);
  });
});
