// A real HTTPS server on a loopback ephemeral port, with a certificate from a throwaway CA made
// once per test process. Records every request with its raw body; the response is scriptable.
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  delayMs?: number;
  /** Never answer (time-out tests). */
  hang?: boolean;
  /** Drop the connection without an answer. */
  destroy?: boolean;
}

export type Responder = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface HttpsReceiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far: stays 0 when a client was refused before connecting. */
  connections: () => number;
  respond(responder: Responder): void;
  close(): Promise<void>;
}

export interface TestCa {
  caPem: string;
  /** The CA in a file, for NODE_EXTRA_CA_CERTS of child processes. */
  caFile: string;
  key: string;
  cert: string;
}

/** Host names the leaf certificate is valid for, besides localhost, 127.0.0.1 and ::1. */
export const TEST_HOSTS = ['receiver.test', 'hooks.example.com', 'site.example.com', 'other.example.com'];

let caPromise: Promise<TestCa> | null = null;

export function testCa(): Promise<TestCa> {
  caPromise ??= (async () => {
    const ca = await selfsigned.generate([{ name: 'commonName', value: 'Quire test CA' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    const leaf = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2 as const, value: 'localhost' },
            ...TEST_HOSTS.map((value) => ({ type: 2 as const, value })),
            { type: 7 as const, ip: '127.0.0.1' },
            { type: 7 as const, ip: '::1' },
          ],
        },
      ],
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ca-'));
    const caFile = path.join(dir, 'ca.pem');
    fs.writeFileSync(caFile, ca.cert);
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    return { caPem: ca.cert, caFile, key: leaf.private, cert: leaf.cert };
  })();
  return caPromise;
}

export async function startHttpsReceiver(responder: Responder = () => ({ status: 200 })): Promise<HttpsReceiver> {
  const ca = await testCa();
  let current = responder;
  let connections = 0;
  const requests: ReceivedRequest[] = [];
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) };
      requests.push(received);
      const reply = await current(received, requests.length - 1);
      if (reply.hang) return;
      if (reply.destroy) return req.socket.destroy();
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    respond(r) {
      current = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
