// The deliveries benchmark's measurement, run by deliveries.ts as a bundle made the way the CLI's
// is, so Quire's side runs as `publish` and the server's worker run it (tsx would add per-closure
// naming calls that the bundle does not have). Prints the result as JSON.
//   argv: <receiver-child.mjs>
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import tls from 'node:tls';
import path from 'node:path';
import selfsigned from 'selfsigned';
import { createSafeClient } from '../../src/net/safe-client.ts';
import { drainOutbox } from '../../src/delivery/delivery-runner.ts';
import { deliveryHeaders } from '../../src/delivery/signing.ts';
import { openStateStore } from '../../src/store/state-store.ts';

export const EVENTS = 1000;
export const CONCURRENCY = 8;
const ROUNDS = 9;
const SECRET = 'bench-secret-0123456789abcdef';

export interface DeliveriesResult {
  quirePerSec: number;
  barePerSec: number;
  ratio: number;
  bytes: number;
}

function payload(i: number): Buffer {
  const html = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(100)}</p>`;
  return Buffer.from(
    JSON.stringify({
      event: 'published',
      article: {
        id: `a-${i}`,
        title: `Article ${i}`,
        slug: `a-${i}`,
        status: 'published',
        metaDescription: '',
        mdx: html.slice(3, 6000),
        html: html.slice(0, 6000),
        imageUrl: '',
        imageAlt: '',
      },
    }),
  );
}

interface Sender {
  url: string;
  ca: string;
  bodies: Buffer[];
  receiver: ChildProcess;
}

/**
 * The receiver runs in its own process, as a site's does: in this one, its TLS and parsing would
 * share the senders' event loop and be counted as theirs.
 */
async function measure(receiverScript: string): Promise<DeliveriesResult> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'bench CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true },
    ],
  });
  const leaf = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7 as const, ip: '127.0.0.1' }] }],
  });
  const receiver = fork(receiverScript, { stdio: 'inherit' });
  try {
    receiver.send({ key: leaf.private, cert: leaf.cert });
    const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
    const bodies = Array.from({ length: EVENTS }, (_, i) => payload(i));
    const sender: Sender = { url: `https://127.0.0.1:${port}/hook`, ca: ca.cert, bodies, receiver };
    // Alternating rounds, best of each: neither side gets the warm-up advantage.
    let bareMs = Infinity;
    let quireMs = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      bareMs = Math.min(bareMs, await runBare(sender));
      quireMs = Math.min(quireMs, await runQuire(sender));
    }
    const quirePerSec = EVENTS / (quireMs / 1000);
    const barePerSec = EVENTS / (bareMs / 1000);
    return { quirePerSec, barePerSec, ratio: quirePerSec / barePerSec, bytes: bodies[0]!.length };
  } finally {
    receiver.send('exit');
  }
}

/**
 * Bare: a keep-alive agent, the same bytes and headers, the same concurrency. The bench's CA goes
 * in as a secure context built once, as Quire's client takes it: given as `ca`, the agent would
 * put the whole certificate into the pool key it builds for every request, a cost a client of a
 * site with a public certificate never pays.
 */
async function runBare({ url, ca, bodies }: Sender): Promise<number> {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: CONCURRENCY,
    secureContext: tls.createSecureContext({ ca }),
  });
  const post = (body: Buffer, i: number) =>
    new Promise<void>((resolve, reject) => {
      const headers = deliveryHeaders({
        body,
        secret: SECRET,
        event: 'published',
        deliveryId: `dlv_${i}`,
        timestampSec: Math.floor(Date.now() / 1000),
        attempt: 1,
      });
      const req = https.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await post(bodies[i]!, i);
      }
    }),
  );
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

/** Quire: the outbox in a real SQLite file, the delivery runner, the SSRF-safe client. */
async function runQuire({ url, ca, bodies, receiver }: Sender): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-deliveries-'));
  const store = openStateStore(dir, 'x'.repeat(40));
  const client = createSafeClient({ allowPrivate: true, ca, log: () => {} });
  try {
    await store.webhooks.save('bench', { url, secret: SECRET }, Date.now());
    const now = Date.now();
    await store.transaction(async (tx) => {
      for (const [i, body] of bodies.entries())
        await tx.outbox.enqueue({ siteId: 'bench', slug: `a-${i}`, event: 'published', body, origin: 'publish' }, now);
    });
    const receivedBefore = await receivedCount(receiver);
    const started = performance.now();
    const summary = await drainOutbox(
      { store, client, now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      { concurrency: CONCURRENCY },
    );
    const ms = performance.now() - started;
    const received = (await receivedCount(receiver)) - receivedBefore;
    if (summary.delivered !== EVENTS || received !== EVENTS)
      throw new Error(`delivered ${summary.delivered}, received ${received}`);
    return ms;
  } finally {
    client.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function receivedCount(receiver: ChildProcess): Promise<number> {
  receiver.send('count');
  const [{ received }] = (await once(receiver, 'message')) as [{ received: number }];
  return received;
}

process.stdout.write(JSON.stringify(await measure(process.argv[2]!)));
