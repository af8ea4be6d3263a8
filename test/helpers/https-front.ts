// A TLS-terminating front for a plain-http server on loopback (a framework's own server), so that
// Quire, which delivers webhooks over HTTPS only, can reach it: the test CA's certificate (trust
// it with NODE_EXTRA_CA_CERTS=testPki().caFile), every request passed through as it came. The
// origin may be set after the front starts, for a site that must know its public URL when built.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { testPki } from './https-receiver.ts';

export interface HttpsFront {
  /** https://127.0.0.1:<port> */
  url: string;
  setOrigin(origin: string): void;
  close(): Promise<void>;
}

export async function startHttpsFront(): Promise<HttpsFront> {
  const { certPem, keyPem } = await testPki();
  let origin: URL | null = null;
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    if (!origin) return void res.writeHead(502).end('no origin yet');
    const upstream = http.request(
      {
        host: origin.hostname,
        port: origin.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: origin.host, 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`origin failed: ${error.message}`);
    });
    req.pipe(upstream);
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setOrigin: (o) => void (origin = new URL(o)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
