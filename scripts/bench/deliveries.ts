// Webhook delivery throughput: 1,000 events of ~12 KB through the real outbox and delivery
// runner to a loopback HTTPS receiver, next to a bare keep-alive https.request loop sending the
// same bytes at the same concurrency, in the same run.
//   npm run bench -- --only deliveries
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import selfsigned from 'selfsigned';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { drainOutbox } from '../../src/publish/delivery-runner.ts';
import { deliveryHeaders } from '../../src/publish/signing.ts';
import { openStateStore } from '../../src/store/state-store.ts';

const EVENTS = 1000;
const CONCURRENCY = 8;
const SECRET = 'bench-secret-0123456789abcdef';

function payload(i: number): Buffer {
  const html = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(100)}</p>`;
  return Buffer.from(JSON.stringify({ event: 'published', article: { id: `a-${i}`, title: `Article ${i}`, slug: `a-${i}`, status: 'published', metaDescription: '', mdx: html.slice(3, 6000), html: html.slice(0, 6000), imageUrl: '', imageAlt: '' } }));
}

export async function benchDeliveries(): Promise<{ quirePerSec: number; barePerSec: number; ratio: number; bytes: number }> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'bench CA' }], { keyType: 'ec', algorithm: 'sha256', extensions: [{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, digitalSignature: true }] });
  const leaf = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7 as const, ip: '127.0.0.1' }] }],
  });
  let received = 0;
  const server = https.createServer({ key: leaf.private, cert: leaf.cert, keepAliveTimeout: 30_000 }, (req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"url":"https://site.example/x","id":"x"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const bodies = Array.from({ length: EVENTS }, (_, i) => payload(i));

  // Bare: a keep-alive agent, the same bytes and headers, the same concurrency.
  const runBare = async () => {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: ca.cert });
  const post = (body: Buffer, i: number) =>
    new Promise<void>((resolve, reject) => {
      const headers = deliveryHeaders({ body, secret: SECRET, event: 'published', deliveryId: `dlv_${i}`, timestampSec: Math.floor(Date.now() / 1000), attempt: 1 });
      const req = https.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    });
  const bareStart = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < EVENTS) {
      const i = next++;
      await post(bodies[i]!, i);
    }
  }));
  const bareMs = performance.now() - bareStart;
  agent.destroy();
  return bareMs;
  };

  // Quire: the outbox in a real SQLite file, the delivery runner, the SSRF-safe client.
  const runQuire = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-deliveries-'));
  const store = openStateStore(dir, 'x'.repeat(40));
  store.webhooks.save('bench', { url, secret: SECRET }, Date.now());
  const now = Date.now();
  store.db.transaction(() => {
    bodies.forEach((body, i) => store.outbox.enqueue({ siteId: 'bench', slug: `a-${i}`, event: 'published', body, origin: 'publish' }, now));
  })();
  const client = createSafeClient({ allowPrivate: true, ca: ca.cert, log: () => {} });
  received = 0;
  const quireStart = performance.now();
  const summary = await drainOutbox({ store, client, now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) }, { concurrency: CONCURRENCY });
  const quireMs = performance.now() - quireStart;
  if (summary.delivered !== EVENTS || received !== EVENTS) throw new Error(`delivered ${summary.delivered}, received ${received}`);
  client.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return quireMs;
  };

  // Alternating rounds, best of each: neither side gets the warm-up advantage.
  let bareMs = Infinity;
  let quireMs = Infinity;
  for (let round = 0; round < 5; round++) {
    bareMs = Math.min(bareMs, await runBare());
    quireMs = Math.min(quireMs, await runQuire());
  }
  server.close();
  const quirePerSec = EVENTS / (quireMs / 1000);
  const barePerSec = EVENTS / (bareMs / 1000);
  return { quirePerSec, barePerSec, ratio: quirePerSec / barePerSec, bytes: bodies[0]!.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchDeliveries();
  console.log(`| deliveries/s (1,000 × ${(r.bytes / 1024).toFixed(1)} KB, concurrency ${CONCURRENCY}) | Quire ${r.quirePerSec.toFixed(0)} | bare https ${r.barePerSec.toFixed(0)} | ${(r.ratio * 100).toFixed(0)} % |`);
}
