// Test connection and Redeliver against a real HTTPS receiver: the explanation of each answer
// says each thing once and promises retries only where the delivery gets them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { createSafeClient, type SafeClient } from '../../src/net/safe-client.ts';
import type { DeliveryDeps } from '../../src/delivery/delivery-runner.ts';
import { redeliver } from '../../src/delivery/redeliver.ts';
import { testWebhook } from '../../src/delivery/test-connection.ts';
import type { StateStore } from '../../src/store/state-store.ts';
import { openTestStore } from '../helpers/test-store.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SERVER_SECRET = 's'.repeat(40);
let p: TempProject;
const receiver = useHttpsReceiver();
let store: StateStore;
let client: SafeClient;
let deps: DeliveryDeps & { distDir: string };

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'https://content.example.com',
      })
    ).ok,
  ).toBe(true);
  store = openTestStore(p.stateDir, SERVER_SECRET);
  client = createSafeClient({ allowPrivate: true, ca: receiver.caPem, log: () => {} });
  deps = { store, client, now: Date.now, sleep: async () => {}, distDir: p.distDir };
  await store.webhooks.save(
    'one',
    { url: `${receiver.url}/hook`, secret: 'a-receiver-secret-long-enough-0001' },
    Date.now(),
  );
}, 60_000);

afterAll(async () => {
  client?.close();
  await store?.close();
  p?.cleanup();
});

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('explanations of Test connection', () => {
  it('a redirect: says where it pointed and what to do, once', async () => {
    receiver.respond(() => ({ status: 302, headers: { location: 'https://elsewhere.example.com/hook' } }));
    const result = await testWebhook(deps, 'one');
    if (!result.sent) throw new Error(result.message);
    const { message } = result.explanation;
    expect(message).toContain('HTTP 302 to https://elsewhere.example.com/hook');
    expect(occurrences(message, 'not followed')).toBe(1);
    expect(occurrences(message, 'final URL')).toBe(1);
    expect(occurrences(message, 'redirect')).toBe(1);
  });

  it('a 500 from a test: no promise of retries a test never makes', async () => {
    receiver.respond(() => ({ status: 500 }));
    const before = receiver.requests.length;
    const result = await testWebhook(deps, 'one');
    if (!result.sent) throw new Error(result.message);
    expect(result.explanation.message).toMatch(/HTTP 500/);
    expect(result.explanation.message).not.toMatch(/(?<!not )retried/);
    expect(result.explanation.message).toMatch(/not retried/);
    expect(receiver.requests.length).toBe(before + 1);
    expect((await store.outbox.get(result.deliveryId))!.state).toBe('failed');
  });

  it('a 429 from a test: not retried, so try again later', async () => {
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    const result = await testWebhook(deps, 'one');
    if (!result.sent) throw new Error(result.message);
    expect(result.explanation.message).toBe(
      'The receiver is rate-limiting (HTTP 429). This attempt is not retried: send it again later.',
    );
  });

  it('a 500 on a redelivery that will be retried says so', async () => {
    receiver.respond(() => ({ status: 500 }));
    const first = await testWebhook(deps, 'one');
    if (!first.sent) throw new Error(first.message);
    const again = await redeliver(deps, first.deliveryId, 'one');
    if (!again.sent) throw new Error(again.message);
    expect(again.willRetry).toBe(true);
    expect(again.explanation.message).toMatch(/HTTP 500\. Check its logs\. This delivery is retried with backoff\./);
  });
});
