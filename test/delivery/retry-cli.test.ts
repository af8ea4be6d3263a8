// `quire deliveries retry` end to end: real git repo, the real CLI in child processes beside a
// running server (its own worker sends from the same outbox), a real HTTPS receiver.
import { beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import type { HttpsReceiver, Reply } from '../helpers/https-receiver.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = RECEIVER_SECRET;
const setup = useReceiverProject();
let receiver: HttpsReceiver;
let p: TempProject;
beforeEach(() => {
  receiver = setup.receiver();
});
const env = () => setup.env();
const quire = (args: string[]) => runCli(args, env());

/** The receiver checks the signature like a site owner's would, then answers. */
function answer(reply: Reply) {
  receiver.respond((req) => {
    const v = verifyWebhook(req.rawBody, req.headers, SECRET);
    return v.ok ? reply : { status: 401, json: { error: v.reason } };
  });
}

/** A site whose receiver was down at publish: every delivery pending, its next attempt in an hour. */
async function pendingForAnHour(slugs: string[]): Promise<string[]> {
  p = setup.project.current = createTempProject({ git: true });
  writeSite(p, 'one');
  for (const s of slugs)
    p.write(`one/articles/${s}.md`, article({ title: s.toUpperCase(), status: 'published' }, `Body of ${s}.\n`));
  p.commit('first', '2026-03-01T10:00:00Z');
  expect(
    (await quire(['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hooks`, '--secret', SECRET]))
      .code,
  ).toBe(0);
  answer({ status: 503, headers: { 'retry-after': '3600' } });
  const r = await quire(['publish']);
  expect(r.code, r.stderr).toBe(1);
  const ids = [...r.stderr.matchAll(/pending {2}one \w+ (\S+) \((dlv_[\w-]+)\), next attempt ([\d:.TZ-]+Z)/g)];
  expect(ids).toHaveLength(slugs.length);
  for (const [, , , at] of ids) expect(Date.parse(at!) - Date.now()).toBeGreaterThan(50 * 60_000);
  receiver.requests.length = 0;
  const idOf = new Map(ids.map((m) => [m[1]!, m[2]!]));
  return slugs.map((s) => idOf.get(s)!);
}

const deliveryIds = () => receiver.requests.map((r) => String(r.headers['x-quire-delivery']));

describe('quire deliveries retry', { timeout: 120_000 }, () => {
  it('sends pending deliveries now, once each, beside a running server and another retry', async () => {
    const ids = await pendingForAnHour(['a', 'b', 'c', 'd', 'e']);
    answer({ status: 200, delayMs: 1500, json: { url: 'https://one.example.com/x' } }); // the receiver is fixed
    const server = await startCli(['start'], { ...env(), PORT: '0' }, /Content API on/);
    try {
      const [first, second] = await Promise.all([
        quire(['deliveries', 'retry', '--site', 'one']),
        quire(['deliveries', 'retry']),
      ]);
      for (const r of [first, second]) {
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toMatch(/Delivered 5 of 5 pending deliveries\./);
        for (const id of ids) expect(r.stdout).toMatch(new RegExp(`✓ ${id} {2}one published \\w`));
      }
      // Each was sent exactly once, though two retries and the server's worker all wanted it.
      expect(deliveryIds().sort()).toEqual([...ids].sort());
      expect(first.stdout + second.stdout).toMatch(/delivered by another sender/);
      const again = await quire(['deliveries', 'retry', '--site', 'one']);
      expect([again.code, again.stdout.trim()]).toEqual([0, 'Nothing pending to send.']);
      expect(receiver.requests).toHaveLength(5);
    } finally {
      await server.stop();
    }
  });

  it('one delivery by id; still failing exits 1 with the next attempt; delivered ones are for redeliver', async () => {
    const [a, b] = await pendingForAnHour(['a', 'b']);
    answer({ status: 500 });
    let r = await quire(['deliveries', 'retry', a!]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`✗ ${a} {2}one published a {2}500 .*\\(next attempt \\S+\\)`));
    expect(r.stderr).toMatch(/1 pending again, 0 failed/);
    expect(deliveryIds()).toEqual([a]); // b was not touched
    answer({ status: 200 });
    r = await quire(['deliveries', 'retry', a!]);
    expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/Delivered 1 of 1 pending delivery\./)]);
    r = await quire(['deliveries', 'retry', a!]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${a} was delivered; \`retry\` sends only pending deliveries (to send it again: quire redeliver ${a})`,
    );
    expect(deliveryIds()).toEqual([a, a]);
    // b still waits for its own time; the log says so.
    expect((await quire(['deliveries', '--site', 'one', '--json'])).stdout).toContain(b!);
  });

  it('refuses an unknown site or id (exit 1) and a wrong command line (exit 2)', async () => {
    await pendingForAnHour(['a']);
    let r = await quire(['deliveries', 'retry', '--site', 'nope']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/no site "nope" in .* \(sites: one\)/)]);
    r = await quire(['deliveries', 'retry', 'dlv_nope']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/^no delivery dlv_nope  \[DELIVERY_NOT_FOUND\]$/m)]);
    for (const args of [
      ['retry', 'dlv_x', '--site', 'one'],
      ['retry', '--json'],
      ['retry', '--limit', '3'],
      ['resend'],
    ]) {
      r = await quire(['deliveries', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('deliveries retry [<delivery-id> | --site <id>]');
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('a disabled webhook: retry says so and sends nothing', async () => {
    const [a] = await pendingForAnHour(['a']);
    answer({ status: 410 });
    receiver.requests.length = 0;
    const { openTestStore } = await import('../helpers/test-store.ts');
    const { loadServerSecret } = await import('../../src/config/server-secret.ts');
    const store = openTestStore(p.stateDir, loadServerSecret({ secret: null, stateDir: p.stateDir }));
    await store.webhooks.disable('one', 'the receiver answered 410 Gone', Date.now());
    await store.close();
    const r = await quire(['deliveries', 'retry', a!]);
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringContaining('webhook of one is DISABLED (the receiver answered 410 Gone); set it again to resume'),
    ]);
    expect(receiver.requests).toHaveLength(0);
  });
});
