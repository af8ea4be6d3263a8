// A real HTTPS server on 127.0.0.1 (ephemeral port) with a throwaway CA, for tests of anything that
// sends to a receiver: the SSRF-safe client, webhook delivery, browser tests. It records every
// request's raw bytes and counts TCP connections (to prove none was made, or that one was reused).
// Trust it in-process with `ca: receiver.caPem`, or in a child process with
// NODE_EXTRA_CA_CERTS=receiver.caFile. The default certificate names localhost, *.quire.test,
// 127.0.0.1 and ::1, so a test resolver can map any *.quire.test name here. A test file that needs
// one receiver for all its tests takes it from useHttpsReceiver() (receiver-project.ts); a web
// app (a fetch handler, e.g. the example site) is served on the same CA by startHttpsApp().
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createThrowawayCa, issueServerCertificate } from '../../examples/site/throwaway-ca.ts';

export interface TestPki {
  caPem: string;
  caKeyPem: string;
  /** The CA certificate on disk, for NODE_EXTRA_CA_CERTS; removed when the process exits. */
  caFile: string;
  /** The default leaf: localhost, *.quire.test, 127.0.0.1, ::1. */
  certPem: string;
  keyPem: string;
}

export interface IssueOptions {
  names?: string[];
  ips?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Shorthand: JSON body with content-type application/json. */
  json?: unknown;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (until the receiver closes). */
  hang?: boolean;
  /** Drop the connection instead of answering. */
  destroy?: boolean;
}

/** `index` counts requests from 0 across the receiver's life (handy for "fail twice, then succeed"). */
export type ReceiverHandler = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface HttpsReceiver {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  caPem: string;
  caFile: string;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (counted before TLS). */
  readonly connections: number;
  /** https://<host>:<port><path>, for a host a test resolver maps to 127.0.0.1. */
  urlFor(host: string, path?: string): string;
  /** Replaces the handler for requests from now on. Default: 200 with an empty body. */
  respond(handler: ReceiverHandler): void;
  /** Closes kept-alive idle connections, so the next request must connect anew. */
  closeIdleConnections(): void;
  close(): Promise<void>;
}

export const TEST_NAMES = ['localhost', '*.quire.test'];
export const TEST_IPS = ['127.0.0.1', '::1'];

// Key generation is the slow part; one CA and one default leaf per test process.
let pkiPromise: Promise<TestPki> | undefined;

export function testPki(): Promise<TestPki> {
  pkiPromise ??= createPki().catch((error: unknown) => {
    pkiPromise = undefined;
    throw new Error('could not generate the test CA', { cause: error });
  });
  return pkiPromise;
}

/** A leaf certificate signed by the test CA, e.g. an expired one or one for other names. */
export async function issueCertificate(opts: IssueOptions = {}): Promise<{ certPem: string; keyPem: string }> {
  const { caPem, caKeyPem } = await testPki();
  return issueLeaf({ cert: caPem, key: caKeyPem }, opts);
}

async function createPki(): Promise<TestPki> {
  const ca = await createThrowawayCa('Quire Test CA (throwaway)');
  const leaf = await issueLeaf({ cert: ca.certPem, key: ca.keyPem }, {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-ca-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, ca.certPem);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return { caPem: ca.certPem, caKeyPem: ca.keyPem, caFile, certPem: leaf.certPem, keyPem: leaf.keyPem };
}

function issueLeaf(
  ca: { cert: string; key: string },
  opts: IssueOptions,
): Promise<{ certPem: string; keyPem: string }> {
  return issueServerCertificate(
    { certPem: ca.cert, keyPem: ca.key },
    { ...opts, names: opts.names ?? TEST_NAMES, ips: opts.ips ?? TEST_IPS },
  );
}

export async function startHttpsReceiver(
  opts: { handler?: ReceiverHandler; certificate?: { certPem: string; keyPem: string } } = {},
): Promise<HttpsReceiver> {
  const pki = await testPki();
  const tlsPair = opts.certificate ?? pki;
  let handler: ReceiverHandler = opts.handler ?? (() => ({}));
  let connections = 0;
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = https.createServer({ cert: tlsPair.certPem, key: tlsPair.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
      };
      const index = requests.push(received) - 1;
      Promise.resolve()
        .then(() => handler(received, index))
        .then(
          (reply) => {
            if (reply.destroy) return void req.socket.destroy();
            if (reply.hang) return;
            const send = () => {
              if (res.destroyed) return;
              const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '');
              const headers = {
                ...(reply.json !== undefined ? { 'content-type': 'application/json' } : {}),
                ...reply.headers,
              };
              res.writeHead(reply.status ?? 200, headers).end(body);
            };
            if (!reply.delayMs) return send();
            const timer = setTimeout(() => (timers.delete(timer), send()), reply.delayMs);
            timers.add(timer);
          },
          (error: unknown) => {
            // A broken handler is a test bug: answer 500 with it rather than crash the process.
            if (!res.headersSent)
              res.writeHead(500, { 'content-type': 'text/plain' }).end(`receiver handler failed: ${String(error)}`);
          },
        );
    });
  });
  server.on('connection', (_socket: Socket) => {
    connections += 1;
  });
  // TLS failures (an untrusting client) are expected in tests; without a listener they would be logged.
  server.on('tlsClientError', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caPem: pki.caPem,
    caFile: pki.caFile,
    requests,
    get connections() {
      return connections;
    },
    urlFor: (host, p = '/') => `https://${host}:${port}${p}`,
    respond(next) {
      handler = next;
    },
    closeIdleConnections: () => server.closeIdleConnections(),
    close() {
      for (const timer of timers) clearTimeout(timer);
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

export type FetchHandler = (req: Request) => Response | Promise<Response>;

export interface HttpsApp {
  /** https://127.0.0.1:<port> */
  url: string;
  caPem: string;
  caFile: string;
  /** The app that answers from now on (until then, requests fail): set once the app knows `url`. */
  setHandler(handler: FetchHandler): void;
  close(): Promise<void>;
}

/** A web app on HTTPS with the test CA's default certificate: a receiving site that answers as a real one would. */
export async function startHttpsApp(): Promise<HttpsApp> {
  const { certPem, keyPem, caPem, caFile } = await testPki();
  let handler: FetchHandler | null = null;
  const server = serve({
    fetch: (req: Request) => handler!(req),
    port: 0,
    hostname: '127.0.0.1',
    createServer: https.createServer,
    serverOptions: { key: keyPem, cert: certPem },
  }) as https.Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem,
    caFile,
    setHandler(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
