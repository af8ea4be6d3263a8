// `quire webhook` and `quire publish` end to end: real git repos in temp dirs, the real CLI in a
// child process, a real HTTPS receiver with a throwaway CA, signatures re-computed from the bytes.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/receiver/verify-webhook.ts';
import { startHttpsReceiver, type ReceivedRequest } from '../helpers/https-receiver.ts';
import { useHttpsReceiver } from '../helpers/receiver-project.ts';
import { runCli, spawnCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = 'receiver-shared-secret-0123456789';
const receiver = useHttpsReceiver();
let p: TempProject;

beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(verifying(() => ({ status: 200 })));
});
afterEach(() => p?.cleanup());

/** A receiver that checks the signature like a site owner's would, then answers. */
function verifying(
  answer: (
    req: ReceivedRequest,
    i: number,
  ) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number },
) {
  let count = 0;
  return (req: ReceivedRequest) => {
    const v = verifyWebhook(req.rawBody, req.headers, SECRET);
    if (!v.ok) return { status: 401, body: JSON.stringify({ error: v.reason }) };
    return answer(req, count++);
  };
}

const env = (extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  NODE_EXTRA_CA_CERTS: receiver.caFile,
  QUIRE_PUBLISH_RETRY_WINDOW_MS: '15000',
  ...extra,
});
const quire = (args: string[], extra: Record<string, string> = {}) => runCli(args, env(extra));
const hookUrl = () => `https://127.0.0.1:${receiver.port}/hooks/quire`;

function project(): TempProject {
  p = createTempProject({ git: true });
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published' }, 'Body of A.\n'));
  p.write('one/articles/b.md', article({ title: 'B', status: 'draft' }, 'Body of B.\n'));
  p.commit('first', '2026-03-01T10:00:00Z');
  return p;
}

async function register(extra: string[] = []) {
  const r = await quire(['webhook', 'set', 'one', '--url', hookUrl(), '--secret', SECRET, ...extra]);
  expect(r.stderr).toMatch(/WARNING: .*(SSRF|private)/i); // said loudly
  expect(r.code, r.stderr).toBe(0);
}

const events = () =>
  receiver.requests.map(
    (r) =>
      `${r.headers['x-quire-event']} ${(JSON.parse(r.rawBody.toString()) as { article: { slug: string } }).article.slug}`,
  );

describe('quire publish', { timeout: 120_000 }, () => {
  it('an edit published from disk is said to be uncommitted, not counted as "0 files changed"', async () => {
    project();
    await register();
    expect((await quire(['publish'])).code).toBe(0);
    p.write('one/articles/a.md', article({ title: 'A', status: 'published' }, 'Body of A, not committed yet.\n'));
    let r = await quire(['publish', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: content\/ has uncommitted changes; publishing what is on disk$/m);
    expect(r.stdout).toMatch(/^  one: 1 event would send, since [0-9a-f]{12} \(1 file with uncommitted changes\)$/m);
    // A commit since (the edit of a, and c), and a new file on top of it.
    p.write('one/articles/c.md', article({ title: 'C', status: 'published' }));
    p.commit('edit a, add c', '2026-03-02T10:00:00Z');
    p.write('one/articles/new.md', article({ title: 'New', status: 'published' }));
    r = await quire(['publish', '--dry-run']);
    expect(r.stdout).toMatch(
      /^  one: 3 events would send, since [0-9a-f]{12} \(2 files changed, 1 file with uncommitted changes\)$/m,
    );
  });

  it('sends published/updated for what changed between commits, and nothing otherwise', async () => {
    project();
    await register();

    let r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    expect(events()).toEqual(['published a']);
    // The plan first, then each delivery's result, then the summary.
    const lines = r.stdout.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    expect([
      at(/^Publishing commit /),
      at(/^ {2}one: 1 event queued/),
      at(/^ {4}published\s+a$/),
      at(/^ {2}✓ /),
      at(/^Delivered 1 of 1 attempt/),
    ]).toEqual([0, 1, 2, 3, 4]);
    const first = receiver.requests[0]!;
    // The contract's headers, checked against the raw bytes received.
    expect(first.headers['x-quire-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(first.rawBody).digest('hex')}`,
    );
    expect(first.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['user-agent']).toMatch(/^Quire-Webhooks\//);
    expect(first.headers['webhook-id']).toBe(first.headers['x-quire-delivery']);
    const sw = createHmac('sha256', SECRET)
      .update(`${first.headers['webhook-id']}.${first.headers['webhook-timestamp']}.`)
      .update(first.rawBody)
      .digest('base64');
    expect(first.headers['webhook-signature']).toBe(`v1,${sw}`);
    const body = JSON.parse(first.rawBody.toString());
    expect(body).toEqual({
      event: 'published',
      article: {
        id: 'a',
        title: 'A',
        slug: 'a',
        status: 'published',
        metaDescription: '',
        mdx: '\nBody of A.\n',
        html: '<p>Body of A.</p>',
        imageUrl: '',
        imageAlt: '',
      },
    });

    r = await quire(['publish']);
    expect(r.code).toBe(0);
    expect(receiver.requests).toHaveLength(1); // no change, no request

    p.write('one/articles/a.md', article({ title: 'A', status: 'published' }, 'Body of A, edited.\n'));
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }, 'Body of B.\n'));
    p.commit('edit a, publish b', '2026-03-02T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    expect(events().slice(1).sort()).toEqual(['published b', 'updated a']);
    expect(r.stdout).toMatch(/one: 2 events queued, since [0-9a-f]{12} \(2 files changed\)/);

    // A rename that keeps the slug, and an edit the payload does not carry (the author), send nothing.
    p.write('one/authors/ann.yaml', 'name: Ann\n');
    p.remove('one/articles/a.md');
    p.write(
      'one/articles/2026/a.md',
      article({ title: 'A', status: 'published', author: 'ann' }, 'Body of A, edited.\n'),
    );
    p.commit('move a, add author', '2026-03-03T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code).toBe(0);
    expect(receiver.requests).toHaveLength(3);

    // Withdrawn, then deleted: recorded, not sent (the base contract has no such events), and
    // the run says so, so nobody assumes the receiver removed it…
    p.write('one/articles/b.md', article({ title: 'B', status: 'draft' }, 'Body of B.\n'));
    p.commit('withdraw b', '2026-03-04T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '1 withdrawn article not sent: the receiver did not opt in to unpublished/deleted events',
    );
    p.remove('one/articles/b.md');
    p.commit('delete b', '2026-03-05T10:00:00Z');
    r = await quire(['publish']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('not sent'); // it was withdrawn already: nothing new to not send
    expect(receiver.requests).toHaveLength(3);
    // …so publishing it again is `published`.
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }, 'Body of B.\n'));
    p.commit('b is back', '2026-03-06T10:00:00Z');
    expect((await quire(['publish'])).code).toBe(0);
    expect(events().at(-1)).toBe('published b');

    // --dry-run prints and sends nothing; the next real run sends it.
    p.write('one/articles/b.md', article({ title: 'B2', status: 'published' }, 'Body of B.\n'));
    p.commit('retitle b', '2026-03-07T10:00:00Z');
    r = await quire(['publish', '--dry-run']);
    expect(r.stdout).toMatch(/1 event would send[\s\S]*updated\s+b/);
    expect(receiver.requests).toHaveLength(4);
    expect((await quire(['publish'])).code).toBe(0);
    expect(events().at(-1)).toBe('updated b');
    expect(receiver.requests).toHaveLength(5);
  });

  it('with --extra-events, withdrawn and deleted articles are sent as unpublished/deleted with id and slug', async () => {
    project();
    await register(['--extra-events']);
    p.write('one/articles/b.md', article({ title: 'B', status: 'published' }));
    p.commit('publish b', '2026-03-02T10:00:00Z');
    expect((await quire(['publish'])).code).toBe(0);
    p.write('one/articles/b.md', article({ title: 'B', status: 'draft' }));
    p.remove('one/articles/a.md');
    p.commit('withdraw b, delete a', '2026-03-03T10:00:00Z');
    expect((await quire(['publish'])).code).toBe(0);
    const last = receiver.requests.slice(2).map((r) => JSON.parse(r.rawBody.toString()));
    expect(last).toEqual(
      expect.arrayContaining([
        { event: 'deleted', article: { id: 'a', slug: 'a' } },
        { event: 'unpublished', article: { id: 'b', slug: 'b' } },
      ]),
    );
  });

  it('--baseline records the state without sending; sites without a webhook are skipped', async () => {
    project();
    writeSite(p, 'two');
    p.write('two/articles/c.md', article({ title: 'C', status: 'published' }));
    p.commit('two', '2026-03-02T10:00:00Z');
    await register();
    const r = await quire(['publish', '--baseline']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/two: skipped, no webhook registered/);
    expect(receiver.requests).toHaveLength(0);
    expect((await quire(['publish'])).code).toBe(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it('retries 5xx and 429 (honouring a Retry-After longer than the schedule) within the run', async () => {
    project();
    await register();
    // 429 first: its Retry-After (3 s) outlasts the schedule's first step (2 s ±20 %); the 503's
    // retry follows the schedule (10 s ±20 %), inside the 15 s window.
    receiver.respond(
      verifying((_req, i) =>
        i === 0 ? { status: 429, headers: { 'retry-after': '3' } } : i === 1 ? { status: 503 } : { status: 200 },
      ),
    );
    const r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests).toHaveLength(3);
    const ids = new Set(receiver.requests.map((q) => q.headers['x-quire-delivery']));
    expect(ids.size).toBe(1); // one delivery id across retries
    expect(receiver.requests.map((q) => q.headers['x-quire-attempt'])).toEqual(['1', '2', '3']);
    const json = JSON.parse((await quire(['deliveries', '--json'])).stdout) as { status: number }[];
    expect(json.map((a) => a.status)).toEqual([200, 503, 429]);
  });

  it('a 401 fails without retry; a 3xx fails and nothing reaches the redirect target; publish exits non-zero', async () => {
    project();
    await quire(['webhook', 'set', 'one', '--url', hookUrl(), '--secret', 'not-the-receivers-secret-000']);
    let r = await quire(['publish']);
    expect(r.code).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect(r.stderr).toMatch(/failed\s+one published a .*HTTP 401/);

    const target = await startHttpsReceiver();
    try {
      receiver.respond(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
      await register();
      p.write('one/articles/a.md', article({ title: 'A2', status: 'published' }));
      p.commit('edit', '2026-03-02T10:00:00Z');
      r = await quire(['publish']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/redirect \(302 to https:\/\/127\.0\.0\.1:\d+\/elsewhere\) not followed/);
      expect(target.connections).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('a time-out leaves the delivery pending with its next time; the next run delivers it', async () => {
    project();
    await register();
    receiver.respond(() => ({ hang: true }));
    let r = await quire(['publish'], { QUIRE_WEBHOOK_TIMEOUT_MS: '300', QUIRE_PUBLISH_RETRY_WINDOW_MS: '0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pending\s+one published a \(dlv_\S+\), next attempt \d{4}-.*timeout/);
    receiver.respond(verifying(() => ({ status: 200, body: '{"url":"https://one.example.com/blog/a","id":"42"}' })));
    r = await quire(['publish'], { QUIRE_PUBLISH_RETRY_WINDOW_MS: '5000' });
    expect(r.code, r.stderr).toBe(0);
    const log = JSON.parse((await quire(['deliveries', '--json'])).stdout) as {
      status: number | null;
      replyUrl: string | null;
      error: string | null;
    }[];
    expect(log[0]).toMatchObject({ status: 200, replyUrl: 'https://one.example.com/blog/a' });
    expect(log[1]).toMatchObject({ status: null, error: expect.stringMatching(/^timeout/) });
  });

  it('the running server delivers what a publish run left pending', async () => {
    project();
    await register();
    receiver.respond(() => ({ hang: true }));
    expect(
      (await quire(['publish'], { QUIRE_WEBHOOK_TIMEOUT_MS: '300', QUIRE_PUBLISH_RETRY_WINDOW_MS: '0' })).code,
    ).toBe(1);
    receiver.respond(verifying(() => ({ status: 200 })));
    const before = receiver.requests.length;
    const server = await startCli(['start'], { ...env(), PORT: '0' }, /Content API on/);
    try {
      for (let i = 0; i < 300 && receiver.requests.length === before; i++) await new Promise((r) => setTimeout(r, 50));
      expect(receiver.requests.length).toBe(before + 1);
      for (let i = 0; i < 100 && !/1 delivered/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(server.output()).toMatch(/Webhook deliveries: 1 delivered/);
    } finally {
      await server.stop();
    }
    const log = JSON.parse((await quire(['deliveries', '--json'])).stdout) as {
      status: number | null;
      state: string;
    }[];
    expect(log[0]).toMatchObject({ status: 200, state: 'delivered' });
  });

  it('SIGKILL in the middle of a delivery loses nothing: the rerun delivers it', async () => {
    project();
    p.write('one/articles/c.md', article({ title: 'C', status: 'published' }));
    p.commit('c', '2026-03-02T10:00:00Z');
    await register();
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    receiver.respond(() => {
      arrived();
      return { hang: true };
    });
    const run = spawnCli(['publish'], env());
    await inFlight;
    run.kill();
    await run.result;
    receiver.respond(verifying(() => ({ status: 200 })));
    const before = receiver.requests.length;
    const r = await quire(['publish']);
    expect(r.code, r.stderr).toBe(0);
    const delivered = receiver.requests
      .slice(before)
      .map((q) => (JSON.parse(q.rawBody.toString()) as { article: { slug: string } }).article.slug);
    expect(delivered.sort()).toEqual(['a', 'c']);
  });

  it('two publish runs at once deliver every event exactly once', async () => {
    project();
    for (const s of ['c', 'd', 'e']) p.write(`one/articles/${s}.md`, article({ title: s, status: 'published' }));
    p.commit('more', '2026-03-02T10:00:00Z');
    await register();
    receiver.respond(verifying(() => ({ status: 200, delayMs: 100 })));
    const [r1, r2] = await Promise.all([quire(['publish']), quire(['publish'])]);
    expect([r1.code, r2.code]).toEqual([0, 0]);
    expect(events().sort()).toEqual(['published a', 'published c', 'published d', 'published e']);
  });
});

describe('quire webhook', { timeout: 120_000 }, () => {
  it('refuses unsafe targets and weak secrets at save, with the reason', async () => {
    project();
    const strict = (args: string[]) => quire(args, { QUIRE_ALLOW_PRIVATE_TARGETS: '0' });
    const cases: [string[], RegExp][] = [
      [['--url', 'http://hooks.example.com/x', '--secret', SECRET], /must use https.*\[URL_NOT_HTTPS\]/],
      [
        ['--url', 'https://u:p@hooks.example.com/x', '--secret', SECRET],
        /user name or password.*\[URL_HAS_CREDENTIALS\]/,
      ],
      // A receiver on this machine: for local testing, the setting that allows it is named.
      [
        ['--url', hookUrl(), '--secret', SECRET],
        /127\.0\.0\.1 is a loopback address; webhook targets must be public \(to test with a receiver on this machine or network, run Quire with QUIRE_ALLOW_PRIVATE_TARGETS=1\)  \[URL_HOST_NOT_PUBLIC\]/,
      ],
      [
        ['--url', 'https://2130706433/x', '--secret', SECRET],
        /loopback.*QUIRE_ALLOW_PRIVATE_TARGETS=1.*\[URL_HOST_NOT_PUBLIC\]/,
      ],
      [
        ['--url', 'https://localhost/x', '--secret', SECRET],
        /QUIRE_ALLOW_PRIVATE_TARGETS=1\)  \[URL_HOST_NOT_PUBLIC\]/,
      ],
      [['--url', 'https://hooks.example.com/x', '--secret', 'short'], /at least 24 characters.*\[SECRET_TOO_SHORT\]/],
    ];
    for (const [args, message] of cases) {
      const r = await strict(['webhook', 'set', 'one', ...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
    }
    expect((await strict(['webhook', 'show', 'one'])).stdout).toMatch(/one has no webhook/);
  });

  it('webhook test builds first: it sends the newest published article even before any build', async () => {
    project();
    await register();
    const r = await quire(['webhook', 'test', 'one']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/no published article/);
    expect(events()).toEqual(['updated a']);
    // A build that fails is reported, and nothing is sent.
    p.write('one/articles/broken.md', '---\nstatus: published\n---\n');
    const broken = await quire(['webhook', 'test', 'one']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /broken\.md:1:1 {2}missing required field `title`[\s\S]*Not tested: the content does not build/,
    );
    expect(receiver.requests).toHaveLength(1);
  });

  it('generates a secret shown once, shows only a hint after, tests the connection, explains a 401', async () => {
    project();
    const set = await quire(['webhook', 'set', 'one', '--url', hookUrl(), '--generate-secret']);
    expect(set.code, set.stderr).toBe(0);
    const secret = set.stdout.trim().split('\n').at(-1)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const show = await quire(['webhook', 'show']);
    expect(show.stdout).toContain(`secret …${secret.slice(-4)}`);
    expect(show.stdout).not.toContain(secret.slice(6, 20));

    let r = await quire(['webhook', 'test', 'one']);
    expect(r.code).toBe(1); // the receiver knows SECRET, not the generated one
    expect(r.stderr).toMatch(/rejected the secret or signature \(HTTP 401\)/);

    await register();
    receiver.respond(verifying(() => ({ status: 200, body: '{"url":"https://one.example.com/blog/a","id":"a"}' })));
    r = await quire(['webhook', 'test', 'one']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /Success: the receiver accepted the delivery with HTTP 200 in \d+ ms\. It says the article is at https:\/\/one\.example\.com\/blog\/a/,
    );
    expect(receiver.requests.at(-1)!.headers['x-quire-event']).toBe('updated');

    const log = JSON.parse((await quire(['deliveries', '--json'])).stdout) as { delivery: string; origin: string }[];
    expect(log[0]!.origin).toBe('test');
    r = await quire(['redeliver', log[0]!.delivery]);
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests.at(-1)!.rawBody.equals(receiver.requests.at(-2)!.rawBody)).toBe(true);
    expect(receiver.requests.at(-1)!.headers['x-quire-delivery']).not.toBe(
      receiver.requests.at(-2)!.headers['x-quire-delivery'],
    );

    expect((await quire(['webhook', 'remove', 'one'])).code).toBe(0);
    expect((await quire(['webhook', 'show', 'one'])).stdout).toMatch(/no webhook/);
  });
});
