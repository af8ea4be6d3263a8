// The state store on a real PostgreSQL server (npm run test:postgres starts one): the outbox's
// rules as SQLite keeps them, and what only a shared database has to hold — claims across
// processes, migrations run by two processes at once, secrets sealed, clear errors for a bad
// server, and the copy of a SQLite state.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { openStateStore, type StateStore } from '../../src/store/state-store.ts';
import { freePort } from '../helpers/nginx.ts';
import { findPostgresBin } from '../helpers/postgres-server.ts';
import { runCli } from '../helpers/run-cli.ts';

const SECRET = 'x'.repeat(40);
const ADMIN = process.env.QUIRE_TEST_POSTGRES_URL!;
const opened: StateStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function freshDatabase(): string {
  const name = `quire_t_${randomBytes(6).toString('hex')}`;
  execFileSync(path.join(findPostgresBin()!, 'psql'), [ADMIN, '-qAtc', `CREATE DATABASE ${name}`]);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return url.toString();
}

function open(url: string, secret = SECRET): StateStore {
  const store = openStateStore(os.tmpdir(), secret, url);
  opened.push(store);
  return store;
}

async function sql<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

const body = (s: string) => Buffer.from(s);
/** Index entries read so far in the per-slug indexes (the pending deliveries of a slug; the slug leases). */
const indexReads = async (url: string) =>
  (
    await sql<{ n: number }>(
      url,
      `SELECT coalesce(sum(idx_tup_read), 0)::int AS n FROM pg_stat_user_indexes WHERE indexrelname IN ('deliveries_pending_slug', 'slug_leases_pkey')`,
    )
  )[0]!.n;
const HOOK = { url: 'https://hooks.example.com', secret: 's'.repeat(30) };

describe('the outbox on PostgreSQL', () => {
  it('says its writes are round trips to a server, so senders let the attempts recorded meanwhile make a group', () => {
    expect(open(ADMIN).writes).toBe('round-trip');
  });

  it('supersedes, claims exclusively, keeps one slug at a time, and reschedules as SQLite does', async () => {
    const store = open(freshDatabase());
    await store.webhooks.save('s', HOOK, 0);
    const first = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' },
      10,
    );
    const second = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'published', body: body('2'), origin: 'publish' },
      11,
    );
    expect((await store.outbox.get(first))!.state).toBe('superseded');
    expect((await store.outbox.pendingPublishFor('s', 'a'))!.id).toBe(second);
    const a2 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('3'), origin: 'redeliver' },
      12,
    );
    const b = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'updated', body: body('4'), origin: 'publish' },
      13,
    );
    // One article's deliveries go in order: a2 waits while the older `second` is pending.
    expect(await store.outbox.due(20)).toEqual([second, b]);
    const taken = await store.outbox.takeMany([a2, second, b], 'one', 20, 1000);
    expect(taken.map((d) => [d.id, d.body.toString()])).toEqual([
      [second, '2'],
      [b, '4'],
    ]);
    expect(await store.outbox.claim(a2, 'two', 21, 1000)).toBe(false);
    expect(await store.outbox.claim(second, 'two', 21, 1000)).toBe(false); // claimed
    // A failed attempt reschedules it and frees the slug; the later one still waits behind it.
    await store.outbox.recordAttempt(
      second,
      { url: HOOK.url, startedAt: 20, durationMs: 5, status: 503, error: 'HTTP 503', replyUrl: null, replyId: null },
      { state: 'pending', nextAttemptAt: 5000 },
      30,
    );
    expect(await store.outbox.get(second)).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: 5000,
      lastStatus: 503,
      lastError: 'HTTP 503',
    });
    expect(await store.outbox.claim(second, 'two', 31, 1000)).toBe(false); // not before its time
    expect(await store.outbox.claim(a2, 'two', 31, 1000)).toBe(false);
    expect(await store.outbox.nextDueAt(null)).toBe(1000); // b's lease ends before second is due; a2 waits behind second
    expect(await store.outbox.claim(second, 'two', 5000, 6000)).toBe(true);
    await store.outbox.recordAttempt(
      second,
      { url: HOOK.url, startedAt: 5000, durationMs: 5, status: 200, error: null, replyUrl: null, replyId: null },
      { state: 'delivered' },
      5001,
    );
    expect(await store.outbox.claim(a2, 'two', 5002, 6000)).toBe(true);
    // An expired lease (a sender that died) is taken over.
    expect(await store.outbox.claim(b, 'three', 1001, 2000)).toBe(true);
    await store.outbox.recordAttempts([
      {
        id: a2,
        attempt: {
          url: HOOK.url,
          startedAt: 40,
          durationMs: 5,
          status: 200,
          error: null,
          replyUrl: 'https://site.example/a',
          replyId: '7',
        },
        verdict: { state: 'delivered' },
        now: 50,
      },
      {
        id: b,
        attempt: {
          url: HOOK.url,
          startedAt: 1001,
          durationMs: 5,
          status: null,
          error: 'refused',
          errorKind: 'refused',
          replyUrl: null,
          replyId: null,
        },
        verdict: { state: 'failed' },
        now: 1002,
      },
    ]);
    expect(await store.outbox.get(a2)).toMatchObject({
      state: 'delivered',
      settledAt: 50,
      replyUrl: 'https://site.example/a',
    });
    expect(await store.outbox.latestReplyUrl('s', 'a')).toBe('https://site.example/a');
    expect((await store.outbox.attemptLog()).map((a) => [a.deliveryId, a.status, a.errorKind ?? null])).toEqual([
      [second, 200, null],
      [b, null, 'refused'],
      [a2, 200, null],
      [second, 503, null],
    ]);
    expect(await store.outbox.undelivered('s')).toMatchObject([{ deliveryId: b, slug: 'b' }]);
    expect(await store.outbox.counts('s')).toEqual({ pending: 0, delivered: 2, failed: 1, superseded: 1 });
    const later = await store.outbox.enqueue(
      { siteId: 's', slug: 'c', event: 'published', body: body('5'), origin: 'publish' },
      60,
    );
    await store.outbox.recordAttempt(
      later,
      { url: HOOK.url, startedAt: 61, durationMs: 5, status: 503, error: 'HTTP 503', replyUrl: null, replyId: null },
      { state: 'pending', nextAttemptAt: 9000 },
      62,
    );
    expect(await store.outbox.pendingSummary()).toEqual({ count: 1, oldestCreatedAt: 60 });
    expect(await store.outbox.nextDueAt(null)).toBe(9000);
    expect(await store.outbox.pendingMadeDue('s', 100)).toEqual([later]);
    expect(await store.outbox.due(100)).toEqual([later]);
    await store.webhooks.disable('s', 'gone', 101);
    expect(await store.outbox.due(100)).toEqual([]);
  });

  it.each(['due, then takeMany', 'takeDue'])(
    "many senders in two processes' worth of connections (%s): every delivery claimed once, no slug twice at once",
    async (how) => {
      const url = freshDatabase();
      const [one, two] = [open(url), open(url)];
      await one.webhooks.save('s', HOOK, 0);
      const ids: string[] = [];
      for (let i = 0; i < 200; i++)
        ids.push(
          await one.outbox.enqueue(
            { siteId: 's', slug: `slug-${i % 40}`, event: 'updated', body: body(String(i)), origin: 'redeliver' },
            10,
          ),
        );
      const claimed = new Map<string, string>();
      const inFlight = new Set<string>();
      let overlap = 0;
      const sender = async (store: StateStore, name: string) => {
        for (;;) {
          let taken: Awaited<ReturnType<StateStore['outbox']['takeDue']>>;
          if (how === 'takeDue') {
            taken = await store.outbox.takeDue(20, null, 10, name, 100_000);
            if (!taken.length && !(await store.outbox.pendingSummary()).count) return;
          } else {
            const due = await store.outbox.due(20, null, 50);
            if (!due.length) return;
            taken = await store.outbox.takeMany(due, name, 20, 100_000);
          }
          for (const d of taken) {
            if (claimed.has(d.id)) throw new Error(`${d.id} claimed twice`);
            claimed.set(d.id, name);
            if (inFlight.has(d.slug)) overlap++;
            inFlight.add(d.slug);
          }
          await new Promise((r) => setTimeout(r, 2));
          for (const d of taken) inFlight.delete(d.slug);
          await store.outbox.recordAttempts(
            taken.map((d) => ({
              id: d.id,
              attempt: {
                url: HOOK.url,
                startedAt: 20,
                durationMs: 1,
                status: 200,
                error: null,
                replyUrl: null,
                replyId: null,
              },
              verdict: { state: 'delivered' as const },
              now: 21,
            })),
          );
        }
      };
      await Promise.all([1, 2, 3, 4].flatMap((n) => [sender(one, `one-${n}`), sender(two, `two-${n}`)]));
      expect(claimed.size).toBe(200);
      expect(overlap).toBe(0);
      expect(await one.outbox.counts()).toMatchObject({ pending: 0, delivered: 200 });
      const [row] = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM attempts');
      expect(Number(row!.n)).toBe(200);
    },
  );

  it('claims give the bodies back as the bytes queued, and go on after their connection is cut', async () => {
    const url = freshDatabase();
    const store = open(url);
    await store.webhooks.save('s', HOOK, 0);
    const bytes = Buffer.from(JSON.stringify({ title: 'Crème brûlée ☃ 😀', html: '<p>\u00a0</p>' }));
    const first = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'published', body: bytes, origin: 'publish' },
      10,
    );
    const second = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'published', body: bytes, origin: 'publish' },
      10,
    );
    const [byDue] = await store.outbox.takeDue(20, null, 1, 'one', 1000);
    const [byId] = await store.outbox.takeMany([second], 'one', 20, 1000);
    for (const d of [byDue!, byId!]) {
      expect(Buffer.isBuffer(d.body)).toBe(true);
      expect(d.body.equals(bytes)).toBe(true);
    }
    expect(byDue!.id).toBe(first);
    // The claims' own connection ended by the server: the next claim opens another.
    await store.outbox.release([first, second], 'one');
    await sql(
      url,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'quire claims'`,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await store.outbox.takeDue(20, null, 5, 'two', 1000)).map((d) => d.id).sort()).toEqual(
      [first, second].sort(),
    );
  });

  it('claims work once a database that was missing at the first claim is there', async () => {
    const url = new URL(ADMIN);
    const name = `quire_t_${randomBytes(6).toString('hex')}`;
    url.pathname = `/${name}`;
    const store = open(url.toString());
    await expect(store.outbox.takeDue(20, null, 5, 'one', 1000)).rejects.toThrow(/does not exist/);
    execFileSync(path.join(findPostgresBin()!, 'psql'), [ADMIN, '-qAtc', `CREATE DATABASE ${name}`]);
    expect(await store.outbox.takeDue(20, null, 5, 'one', 1000)).toEqual([]);
  });

  it('claims of deliveries queued in bulk are mostly HOT updates (no new index entries)', async () => {
    const url = freshDatabase();
    const store = openStateStore(os.tmpdir(), SECRET, url); // closed below
    await store.webhooks.save('s', HOOK, 0);
    await store.transaction(async (tx) => {
      for (let i = 0; i < 300; i++)
        await tx.outbox.enqueue(
          { siteId: 's', slug: `a-${i}`, event: 'published', body: body('x'.repeat(300)), origin: 'publish' },
          10,
        );
    });
    let claimed = 0;
    for (
      let taken: Awaited<ReturnType<StateStore['outbox']['takeDue']>>;
      (taken = await store.outbox.takeDue(20, null, 64, 'one', 1000)).length;
    )
      claimed += taken.length;
    expect(claimed).toBe(300);
    await store.close(); // its connections' statistics are reported as they end
    const counts = async () =>
      (
        await sql<{ upd: number; hot: number }>(
          url,
          `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'deliveries'`,
        )
      )[0]!;
    for (let i = 0; i < 50 && (await counts()).upd < 300; i++) await new Promise((r) => setTimeout(r, 100));
    const { upd, hot } = await counts();
    expect(upd).toBe(300);
    expect(hot).toBeGreaterThan(upd * 0.6);
  });

  it('claims probe the slug of each candidate, even when the statistics were taken with nothing pending', async () => {
    // A queue empties and refills between analyzes. Planned from statistics that say no delivery
    // is pending, the per-slug checks became joins that read every pending delivery for each
    // candidate (64 × 3,000 index entries per claim here). Autovacuum is off so the stale
    // statistics stay what the planner sees; what the claims read is counted, not timed.
    const url = freshDatabase();
    const store = openStateStore(os.tmpdir(), SECRET, url); // closed below
    await store.webhooks.save('s', HOOK, 0);
    await sql(
      url,
      'ALTER TABLE deliveries SET (autovacuum_enabled = off); ALTER TABLE slug_leases SET (autovacuum_enabled = off)',
    );
    const queue = (n: number, prefix: string) =>
      store.transaction(async (tx) => {
        for (let i = 0; i < n; i++)
          await tx.outbox.enqueue(
            { siteId: 's', slug: `${prefix}-${i}`, event: 'published', body: body('x'), origin: 'publish' },
            10,
          );
      });
    await queue(200, 'old');
    for (
      let taken: Awaited<ReturnType<StateStore['outbox']['takeDue']>>;
      (taken = await store.outbox.takeDue(20, null, 64, 'one', 1000)).length;
    ) {
      await store.outbox.recordAttempts(
        taken.map((d) => ({
          id: d.id,
          attempt: {
            url: HOOK.url,
            startedAt: 20,
            durationMs: 1,
            status: 200,
            error: null,
            replyUrl: null,
            replyId: null,
          },
          verdict: { state: 'delivered' as const },
          now: 20,
        })),
      );
    }
    await sql(url, 'ANALYZE deliveries; ANALYZE slug_leases');
    await queue(3000, 'new');
    const before = await indexReads(url);
    let claimed = 0;
    for (let i = 0; i < 10; i++) claimed += (await store.outbox.takeDue(30, null, 64, 'one', 1000)).length; // past the 5 custom plans: the generic one too
    expect(claimed).toBe(640);
    expect(await store.outbox.nextDueAt(null)).toBe(10);
    await store.close(); // its connections' statistics are reported as they end
    let reads = 0;
    for (let i = 0; i < 50 && (reads = (await indexReads(url)) - before) === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(40 * claimed); // was ~190,000 per claim
  });

  it('a transaction is all or nothing, on one connection', async () => {
    const store = open(freshDatabase());
    await store.webhooks.save('s', HOOK, 0);
    await expect(
      store.transaction(async (tx) => {
        await tx.outbox.enqueue({ siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' }, 10);
        await tx.published.record(
          's',
          'abc',
          [{ slug: 'a', state: 'published', payloadHash: 'h', item: '{"slug":"a"}' }],
          10,
        );
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await store.outbox.list()).toEqual([]);
    expect(await store.published.get('s')).toBeNull();
    await store.transaction(async (tx) => {
      await tx.outbox.enqueue({ siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' }, 10);
      await tx.published.record(
        's',
        'abc',
        [{ slug: 'a', state: 'published', payloadHash: 'h', item: '{"slug":"a"}' }],
        10,
      );
    });
    expect((await store.published.get('s'))!.articles.get('a')).toEqual({ state: 'published', payloadHash: 'h' });
    expect(await store.outbox.counts()).toMatchObject({ pending: 1 });
  });

  it('seals webhook secrets: not in the database in clear, opened only with the same server secret', async () => {
    const url = freshDatabase();
    await open(url).webhooks.save(
      'site',
      { url: 'https://hooks.example.com/q', secret: 'super-secret-value-1234567890' },
      1,
    );
    expect(await open(url).webhooks.secretOf('site')).toBe('super-secret-value-1234567890');
    const rows = await sql<Record<string, unknown>>(url, 'SELECT * FROM webhooks');
    expect(JSON.stringify(rows)).not.toContain('super-secret-value');
    await expect(open(url, 'y'.repeat(40)).webhooks.secretOf('site')).rejects.toThrow(/server secret .* changed/);
  });

  it('a lock is held by one process at a time, and freed when its holder ends', async () => {
    const url = freshDatabase();
    const [one, two] = [open(url), open(url)];
    const held = await one.locks.tryAcquire('publish', 'one', 1);
    expect(held.acquired).toBe(true);
    expect(await two.locks.tryAcquire('publish', 'two', 2)).toMatchObject({
      acquired: false,
      holder: { owner: 'one', pid: process.pid },
    });
    if (held.acquired) await held.release();
    const again = await two.locks.tryAcquire('publish', 'two', 3);
    expect(again.acquired).toBe(true);
    if (again.acquired) await again.release();
  });
});

describe('the change log on PostgreSQL', () => {
  it('logs each recorded change in order, with `updated` for one published before; pages; forgetting expires its cursors', async () => {
    const store = open(freshDatabase());
    const item = (slug: string) => JSON.stringify({ slug });
    expect(await store.changes.publishedNow('one')).toEqual({ articles: null, position: 0 });
    await store.published.record(
      'one',
      'c1',
      [
        { slug: 'a', state: 'published', payloadHash: 'h1', item: item('a') },
        { slug: 'b', state: 'published', payloadHash: 'h2', item: item('b') },
      ],
      10,
    );
    await store.published.record(
      'two',
      'c1',
      [{ slug: 'z', state: 'published', payloadHash: 'h3', item: item('z') }],
      11,
    );
    await store.published.record(
      'one',
      'c2',
      [
        { slug: 'a', state: 'published', payloadHash: 'h4', item: item('a') },
        { slug: 'b', state: 'withdrawn', payloadHash: null, item: null },
      ],
      12,
    );
    const all = await store.changes.after('one', 0, 100);
    if (all.status !== 'ok') throw new Error('expired');
    expect(all.entries.map((e) => `${e.type}:${e.slug}`)).toEqual([
      'published:a',
      'published:b',
      'updated:a',
      'withdrawn:b',
    ]);
    // Positions are the site's own: site two's entry between them is not counted.
    expect(all.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.changes.publishedNow('two')).position).toBe(1);
    const first = await store.changes.after('one', 0, 3);
    expect(first).toMatchObject({ status: 'ok', more: true, position: 3 });
    expect(await store.changes.after('one', 3, 3)).toMatchObject({ status: 'ok', more: false, position: 4 });
    expect(await store.changes.after('one', 5, 3)).toEqual({ status: 'expired' }); // past the newest ever made
    expect(await store.changes.publishedNow('one')).toEqual({
      articles: [{ slug: 'a', item: item('a'), at: 12 }],
      position: 4,
    });
    await store.published.forget('one');
    expect(await store.changes.after('one', 3, 3)).toEqual({ status: 'expired' });
    expect(await store.changes.publishedNow('one')).toEqual({ articles: null, position: 4 });
    expect((await store.changes.after('two', 0, 10)).status).toBe('ok');
  });

  it('two servers recording one site at once take its positions one after the other: none twice, none skipped, none read out of order', async () => {
    const url = freshDatabase();
    const [a, b] = [open(url), open(url)];
    await Promise.all([a.changes.storeId(), b.changes.storeId()]);
    const change = (slug: string) => ({
      slug,
      state: 'published' as const,
      payloadHash: slug,
      item: JSON.stringify({ slug }),
    });
    const ROUNDS = 15;
    // A follower reads site one from its cursor while they record: it must miss nothing.
    let recording = true;
    const followed: number[] = [];
    const follower = (async () => {
      for (let position = 0, last = false; !last; ) {
        last = !recording;
        const got = await a.changes.after('one', position, 1000);
        if (got.status !== 'ok') throw new Error('expired');
        followed.push(...got.entries.map((e) => e.seq));
        position = got.position;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    await Promise.all(
      [a, b].flatMap((s, n) =>
        Array.from({ length: ROUNDS }, async (_, r) => {
          await s.published.record('one', null, [change(`s${n}-${r}-x`), change(`s${n}-${r}-y`)], r);
          await s.published.record('two', null, [change(`s${n}-${r}`)], r);
        }),
      ),
    );
    recording = false;
    await follower;
    const one = await a.changes.after('one', 0, 1000);
    if (one.status !== 'ok') throw new Error('expired');
    const positions = Array.from({ length: 2 * 2 * ROUNDS }, (_, i) => i + 1);
    expect(one.entries.map((e) => e.seq)).toEqual(positions);
    expect(followed).toEqual(positions);
    // Each recording's two changes are next to each other, in its order.
    for (let i = 0; i < one.entries.length; i += 2) {
      expect(one.entries[i]!.slug).toMatch(/-x$/);
      expect(one.entries[i + 1]!.slug).toBe(one.entries[i]!.slug.replace(/-x$/, '-y'));
    }
    expect(await a.changes.publishedNow('one')).toMatchObject({ position: 2 * 2 * ROUNDS });
    expect(await b.changes.publishedNow('two')).toMatchObject({ position: 2 * ROUNDS });
  });

  it('a store from before positions were per site: each site renumbered in order and going on from there, old cursors expired', async () => {
    const url = freshDatabase();
    await sql(url, MIGRATIONS.slice(0, 3).join(';\n'));
    await sql(
      url,
      `CREATE TABLE quire_schema (version integer PRIMARY KEY, applied_at bigint NOT NULL); INSERT INTO quire_schema VALUES (1, 0), (2, 0), (3, 0)`,
    );
    // One numbering for both sites, as it was: one 2, 4, 6, 7 (its 1 pruned); two 3, 5, 8.
    const rows = [
      [2, 'one', 'b', 'published'],
      [3, 'two', 'z', 'published'],
      [4, 'one', 'a', 'updated'],
      [5, 'two', 'z', 'updated'],
      [6, 'one', 'b', 'withdrawn'],
      [7, 'one', 'c', 'published'],
      [8, 'two', 'y', 'published'],
    ] as const;
    await sql(
      url,
      `INSERT INTO article_changes (seq, site_id, slug, type, item, at) VALUES ${rows.map(([seq, site, slug, type]) => `(${seq}, '${site}', '${slug}', '${type}', ${type === 'withdrawn' ? 'NULL' : `'{"slug":"${slug}"}'`}, 10)`).join(', ')}`,
    );
    await sql(
      url,
      `UPDATE change_positions SET newest = 8; INSERT INTO article_changes_pruned (site_id, through) VALUES ('one', 1), ('gone', 8); UPDATE store_identity SET id = '0123456789abcdef'`,
    );

    const store = open(url);
    expect(await store.changes.storeId()).not.toBe('0123456789abcdef'); // every cursor made before answers 410
    const story = async (site: string, after = 0) => {
      const got = await store.changes.after(site, after, 100);
      if (got.status !== 'ok') throw new Error('expired');
      return got.entries.map((e) => `${e.seq}:${e.type}:${e.slug}`);
    };
    expect(await story('one')).toEqual(['1:published:b', '2:updated:a', '3:withdrawn:b', '4:published:c']);
    expect(await story('two')).toEqual(['1:published:z', '2:updated:z', '3:published:y']);
    expect((await store.changes.publishedNow('one')).position).toBe(4);
    expect((await store.changes.publishedNow('gone')).position).toBe(0);
    expect(await store.changes.after('one', 5, 10)).toEqual({ status: 'expired' });
    await store.published.record(
      'two',
      null,
      [{ slug: 'x', state: 'published', payloadHash: 'hx', item: '{"slug":"x"}' }],
      20,
    );
    await store.published.record(
      'one',
      null,
      [{ slug: 'd', state: 'published', payloadHash: 'hd', item: '{"slug":"d"}' }],
      20,
    );
    expect(await story('one', 4)).toEqual(['5:published:d']);
    expect(await story('two', 3)).toEqual(['4:published:x']);
  });
});

describe('migrations', () => {
  it('run once when several processes start at once', async () => {
    const url = freshDatabase();
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        runCli(['webhook', 'show'], { QUIRE_DATABASE_URL: url, QUIRE_STATE_DIR: tempDir('quire-pg-state-') }),
      ),
    );
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('no webhooks registered\n');
    }
    const versions = await sql<{ version: number }>(url, 'SELECT version FROM quire_schema ORDER BY version');
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('a redirect recorded before its target had a column: taken out of its words, once', async () => {
    const url = freshDatabase();
    await sql(url, MIGRATIONS.slice(0, 6).join(';\n'));
    await sql(
      url,
      `CREATE TABLE quire_schema (version integer PRIMARY KEY, applied_at bigint NOT NULL); INSERT INTO quire_schema VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0)`,
    );
    await sql(
      url,
      `INSERT INTO deliveries (id, site_id, slug, event, origin, state, created_at) VALUES ('dlv_1', 'one', 'a', 'published', 'publish', 'failed', 0);
      INSERT INTO attempts (delivery_id, url, started_at, duration_ms, status, error) VALUES
        ('dlv_1', 'https://r.example.com/', 1, 5, 301, 'redirect (301 to https://r.example.com/new?a=(1)) not followed: register the final URL'),
        ('dlv_1', 'https://r.example.com/', 2, 5, 302, 'redirect (302) not followed: register the final URL'),
        ('dlv_1', 'https://r.example.com/', 3, 5, 503, 'HTTP 503: busy')`,
    );
    const log = (await open(url).outbox.attemptLog()).reverse();
    expect(log.map((a) => [a.redirectTo, a.error])).toEqual([
      [
        'https://r.example.com/new?a=(1)',
        'redirect (301 to https://r.example.com/new?a=(1)) not followed: register the final URL',
      ],
      [null, 'redirect (302) not followed: register the final URL'],
      [null, 'HTTP 503: busy'],
    ]);
  });

  it('a database from a newer Quire is refused', async () => {
    const url = freshDatabase();
    await open(url).outbox.pendingSummary();
    await sql(url, 'INSERT INTO quire_schema (version, applied_at) VALUES (99, 0)');
    await expect(open(url).outbox.pendingSummary()).rejects.toThrow(/schema version 99, newer than this Quire knows/);
  });
});

describe('a server that cannot be used is said so, before anything else', () => {
  const cli = (url: string) =>
    runCli(['publish'], {
      QUIRE_DATABASE_URL: url,
      QUIRE_STATE_DIR: tempDir('quire-pg-state-'),
      QUIRE_CONTENT_DIR: '/nonexistent',
    });

  it('bad URL, unreachable, wrong password, missing database', async () => {
    const bad = await cli('mysql://localhost/x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/QUIRE_DATABASE_URL/);
    const port = await freePort();
    const unreachable = await cli(`postgres://postgres:pw@127.0.0.1:${port}/quire`);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port}/quire as postgres cannot be reached`),
    );
    const admin = new URL(ADMIN);
    const wrong = new URL(ADMIN);
    wrong.password = 'not-the-password';
    const login = await cli(wrong.toString());
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/refused the login/);
    expect(login.stderr).not.toContain('not-the-password');
    admin.pathname = '/no_such_database';
    const missing = await cli(admin.toString());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no_such_database.*the database does not exist/);
    // Nothing else ran: no build was attempted.
    for (const r of [unreachable, login, missing]) expect(r.stderr).not.toMatch(/content|build/i);
  });

  it('another service at the port, and TLS asked of a server without it', async () => {
    // A web server where PostgreSQL was expected (a wrong port): it closes on the startup message.
    const web = http.createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const port = (web.address() as AddressInfo).port;
      const other = await cli(`postgres://postgres:pw@127.0.0.1:${port}/quire`);
      expect(other.code).toBe(1);
      expect(other.stderr).toMatch(
        new RegExp(
          `^PostgreSQL at 127\\.0\\.0\\.1:${port}/quire as postgres cannot be reached: the connection was closed before any answer .*is it PostgreSQL that listens at the host and port in QUIRE_DATABASE_URL\\?`,
          'm',
        ),
      );
    } finally {
      await new Promise((resolve) => web.close(resolve));
    }
    // The test server has no TLS.
    const tls = new URL(ADMIN);
    tls.searchParams.set('sslmode', 'no-verify');
    const noTls = await cli(tls.toString());
    expect(noTls.code).toBe(1);
    expect(noTls.stderr).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:\d+\/postgres as postgres cannot be reached over TLS \(The server does not support SSL connections\): remove sslmode from QUIRE_DATABASE_URL/m,
    );
    expect(noTls.stderr).not.toContain(new URL(ADMIN).password);
  });
});

describe('quire state migrate-to-postgres', () => {
  it('copies webhooks, the outbox with its bodies and attempts, what was published and the key generations; refuses a database that is not empty', async () => {
    const stateDir = tempDir('quire-pg-copy-');
    const sqlite = openStateStore(stateDir, SECRET);
    await sqlite.webhooks.save('s', { ...HOOK, extraEvents: true }, 1);
    const sent = await sqlite.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'published', body: body('{"a":1}'), origin: 'publish' },
      10,
    );
    await sqlite.outbox.recordAttempt(
      sent,
      {
        url: HOOK.url,
        startedAt: 11,
        durationMs: 3,
        status: 200,
        error: null,
        replyUrl: 'https://s.example/a',
        replyId: '1',
      },
      { state: 'delivered' },
      12,
    );
    const waiting = await sqlite.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'published', body: body('{"b":2}'), origin: 'publish' },
      20,
    );
    await sqlite.outbox.recordAttempt(
      waiting,
      { url: HOOK.url, startedAt: 21, durationMs: 3, status: 503, error: 'HTTP 503', replyUrl: null, replyId: null },
      { state: 'pending', nextAttemptAt: 999 },
      22,
    );
    await sqlite.published.record(
      's',
      'abc',
      [
        { slug: 'a', state: 'published', payloadHash: 'ha', item: '{"slug":"a"}' },
        { slug: 'b', state: 'published', payloadHash: 'hb', item: '{"slug":"b"}' },
      ],
      20,
    );
    await sqlite.published.record(
      's',
      'abd',
      [{ slug: 'b', state: 'withdrawn', payloadHash: null, item: null }],
      30,
      undefined,
      { id: 'build-2', builtAt: 25 },
    );
    await sqlite.keyGenerations.rotate('s', 1);
    await sqlite.keyGenerations.rotate('s.preview', 1);
    const before = {
      log: await sqlite.outbox.attemptLog(),
      list: await sqlite.outbox.list(),
      published: await sqlite.published.get('s'),
      feed: await sqlite.published.feedState('s'),
      hook: await sqlite.webhooks.get('s'),
      storeId: await sqlite.changes.storeId(),
      changes: await sqlite.changes.after('s', 0, 100),
      now: await sqlite.changes.publishedNow('s'),
    };
    expect(before.feed!.build).toEqual({ id: 'build-2', builtAt: 25 });
    await sqlite.close();

    const url = freshDatabase();
    // A server that started on the new database first recorded its keys.json's generations: kept where higher.
    await open(url).keyGenerations.raise({ 's.preview': 4 });
    const env = { QUIRE_STATE_DIR: stateDir, QUIRE_DATABASE_URL: url, QUIRE_SECRET: SECRET };
    const copied = await runCli(['state', 'migrate-to-postgres'], env);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/1 webhook, 2 deliveries, 2 attempts, 1 site published, 2 rotated keys/);
    const store = open(url);
    expect(await store.keyGenerations.all()).toEqual({ s: 2, 's.preview': 4 });
    expect(await store.outbox.attemptLog()).toEqual(before.log);
    expect(await store.outbox.list()).toEqual(before.list);
    expect(await store.published.get('s')).toEqual(before.published);
    expect(await store.published.feedState('s')).toEqual(before.feed);
    expect(await store.webhooks.get('s')).toEqual(before.hook);
    expect(await store.webhooks.secretOf('s')).toBe(HOOK.secret);
    expect(await store.changes.storeId()).toBe(before.storeId);
    expect(await store.changes.after('s', 0, 100)).toEqual(before.changes);
    expect(await store.changes.publishedNow('s')).toEqual(before.now);
    expect((await store.outbox.get(waiting))!.body.toString()).toBe('{"b":2}');

    const again = await runCli(['state', 'migrate-to-postgres'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is not empty: nothing was copied/);
  });
});
