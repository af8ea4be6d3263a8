import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { STATE_DB_FILE } from '../../src/config/state-layout.ts';
import { openStateDb } from '../../src/store/sqlite/database.ts';
import { tryLock } from '../../src/store/sqlite/locks.ts';
import { startZombie } from '../helpers/zombie.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
// The SQLite store's own tests: they look at its file and rows through its database handle.
import {
  openSqliteStateStore as openStateStore,
  type SqliteStateStore as StateStore,
} from '../../src/store/sqlite/sqlite-state-store.ts';

const SERVER_SECRET = 'x'.repeat(40);
let dir: string;
let store: StateStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-store-'));
  store = openStateStore(dir, SERVER_SECRET);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const body = (s: string) => Buffer.from(s);

/** Another process takes the file's write lock and keeps it `ms`; resolves once it holds it. */
async function holdWriteLock(file: string, ms: number): Promise<{ released: Promise<number | null> }> {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('held');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const holder = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(holder, 'exit').then(([code]) => code as number | null);
  await once(holder.stdout!, 'data');
  return { released: exited }; // wrapped: an async function would otherwise wait for the exit
}

describe('state store', () => {
  it('is a WAL SQLite file, mode 0600, at the latest schema version; reopening migrates nothing', () => {
    const file = path.join(dir, STATE_DB_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const again = openStateDb(dir);
    expect(again.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    again.close();
  });

  it('migrates a version-1 store: delivery bodies move to their own table, intact', async () => {
    const old = path.join(dir, 'old');
    fs.mkdirSync(old);
    const raw = new Database(path.join(old, STATE_DB_FILE));
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    raw
      .prepare(
        `INSERT INTO deliveries (id, site_id, slug, event, body, origin, state, next_attempt_at, created_at) VALUES ('dlv_1', 's', 'a', 'published', ?, 'publish', 'pending', 1, 1)`,
      )
      .run(Buffer.from('{"x":1}'));
    raw.close();
    const migrated = openStateStore(old, SERVER_SECRET);
    try {
      expect(migrated.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect((await migrated.outbox.get('dlv_1'))!.body.toString()).toBe('{"x":1}');
    } finally {
      await migrated.close();
    }
  });

  it('says its writes are local, so senders write the attempts recorded meanwhile as soon as a group is written', () => {
    expect(store.writes).toBe('local');
  });

  it('refuses a database from a newer Quire', () => {
    store.db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    expect(() => openStateDb(dir)).toThrow(/newer than this Quire knows/);
  });

  it('seals webhook secrets: not in the file in clear, opened only with the same server secret', async () => {
    await store.webhooks.save(
      'site',
      { url: 'https://hooks.example.com/q', secret: 'super-secret-value-1234567890' },
      1,
    );
    expect(await store.webhooks.secretOf('site')).toBe('super-secret-value-1234567890');
    expect(await store.webhooks.get('site')).toMatchObject({
      url: 'https://hooks.example.com/q',
      secretHint: '…7890',
      extraEvents: false,
    });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(fs.readFileSync(path.join(dir, STATE_DB_FILE)).includes('super-secret-value')).toBe(false);
    const other = openStateStore(dir, 'y'.repeat(40));
    await expect(other.webhooks.secretOf('site')).rejects.toThrow(/server secret .* changed/);
    await other.close();
  });

  it('a sealed secret copied to another site does not open', async () => {
    await store.webhooks.save('a', { url: 'https://a.example.com', secret: 'secret-of-site-a-000000000' }, 1);
    await store.webhooks.save('b', { url: 'https://b.example.com', secret: 'secret-of-site-b-000000000' }, 1);
    store.db
      .prepare(
        `UPDATE webhooks SET secret_sealed = (SELECT secret_sealed FROM webhooks WHERE site_id = 'a') WHERE site_id = 'b'`,
      )
      .run();
    await expect(store.webhooks.secretOf('b')).rejects.toThrow();
  });

  it('saving without a secret keeps the stored one; saving re-enables a disabled webhook', async () => {
    await store.webhooks.save('s', { url: 'https://one.example.com', secret: 'first-secret-abcdefghijklmnop' }, 1);
    await store.webhooks.disable('s', 'gone', 2);
    expect((await store.webhooks.get('s'))!.disabledAt).toBe(2);
    await store.webhooks.save('s', { url: 'https://two.example.com' }, 3);
    expect(await store.webhooks.get('s')).toMatchObject({ url: 'https://two.example.com', disabledAt: null });
    expect(await store.webhooks.secretOf('s')).toBe('first-secret-abcdefghijklmnop');
  });
});

describe('outbox', () => {
  beforeEach(
    async () => await store.webhooks.save('s', { url: 'https://hooks.example.com', secret: 's'.repeat(30) }, 0),
  );

  it('a newer publish event for a slug supersedes the pending one', async () => {
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
    expect(await store.outbox.due(20)).toEqual([second]);
  });

  it('claims are exclusive, and a slug with a delivery in flight cannot have another claimed', async () => {
    const a1 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('1'), origin: 'redeliver' },
      10,
    );
    const a2 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('2'), origin: 'publish' },
      11,
    );
    const b = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'updated', body: body('3'), origin: 'publish' },
      12,
    );
    expect(await store.outbox.claim(a1, 'one', 20, 1000)).toBe(true);
    expect(await store.outbox.claim(a1, 'two', 21, 1000)).toBe(false);
    expect(await store.outbox.claim(a2, 'two', 21, 1000)).toBe(false);
    expect(await store.outbox.claim(b, 'two', 21, 1000)).toBe(true);
    // An expired lease (a sender that died) can be taken over.
    expect(await store.outbox.claim(a1, 'three', 1001, 2000)).toBe(true);
  });

  it('takeDue claims the first due deliveries, one per article, in order, none another sender holds', async () => {
    const a1 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('1'), origin: 'redeliver' },
      10,
    );
    const a2 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('2'), origin: 'redeliver' },
      11,
    );
    const b = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'updated', body: body('3'), origin: 'publish' },
      12,
    );
    const c = await store.outbox.enqueue(
      { siteId: 't', slug: 'c', event: 'updated', body: body('4'), origin: 'publish' },
      13,
    );
    await store.webhooks.save('t', { url: 'https://hooks.example.com/t', secret: 's'.repeat(30) }, 0);
    expect((await store.outbox.takeDue(20, 's', 10, 'one', 1000)).map((d) => [d.id, d.body.toString()])).toEqual([
      [a1, '1'],
      [b, '3'],
    ]);
    expect((await store.outbox.takeDue(20, null, 10, 'two', 1000)).map((d) => d.id)).toEqual([c]); // a2 waits behind a1
    expect(await store.outbox.takeDue(21, null, 10, 'two', 1000)).toEqual([]);
    await store.outbox.recordAttempt(
      a1,
      {
        url: 'https://hooks.example.com',
        startedAt: 20,
        durationMs: 5,
        status: 200,
        error: null,
        replyUrl: null,
        replyId: null,
      },
      { state: 'delivered' },
      30,
    );
    expect((await store.outbox.takeDue(31, null, 1, 'two', 1000)).map((d) => d.id)).toEqual([a2]);
  });

  it('a delivery another sender attempted and rescheduled since it was listed as due is not claimed before its time', async () => {
    const id = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('1'), origin: 'publish' },
      10,
    );
    expect(await store.outbox.due(20)).toEqual([id]); // one sender lists it …
    expect(await store.outbox.claim(id, 'other', 20, 1000)).toBe(true); // … another sends it, and it fails
    await store.outbox.recordAttempt(
      id,
      {
        url: 'https://hooks.example.com',
        startedAt: 20,
        durationMs: 5,
        status: 503,
        error: 'HTTP 503',
        replyUrl: null,
        replyId: null,
      },
      { state: 'pending', nextAttemptAt: 5000 },
      30,
    );
    expect(await store.outbox.claim(id, 'one', 31, 1000)).toBe(false);
    expect(await store.outbox.takeMany([id], 'one', 31, 1000)).toEqual([]);
    expect(await store.outbox.claim(id, 'one', 5000, 9000)).toBe(true);
  });

  // A deferred transaction that reads and then writes cannot wait for another process's write
  // lock (SQLite answers SQLITE_BUSY at once, busy timeout or not): `publish` and the server's
  // worker share the file, so each such transaction takes the write lock up front.
  it('another process holding the write lock makes takeDue and enqueue wait, not fail', async () => {
    await store.outbox.enqueue({ siteId: 's', slug: 'a', event: 'updated', body: body('1'), origin: 'publish' }, 10);
    let lock = await holdWriteLock(path.join(dir, STATE_DB_FILE), 400);
    expect((await store.outbox.takeDue(20, null, 10, 'one', 1000)).map((d) => d.slug)).toEqual(['a']);
    expect(await lock.released).toBe(0);

    lock = await holdWriteLock(path.join(dir, STATE_DB_FILE), 400);
    await store.outbox.enqueue({ siteId: 's', slug: 'a', event: 'published', body: body('2'), origin: 'publish' }, 30);
    expect(await lock.released).toBe(0);
  });

  it('claims in a batch follow the same rules, within the batch too', async () => {
    const a1 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('1'), origin: 'redeliver' },
      10,
    );
    const a2 = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'updated', body: body('2'), origin: 'publish' },
      11,
    );
    const b = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'updated', body: body('3'), origin: 'publish' },
      12,
    );
    const c = await store.outbox.enqueue(
      { siteId: 's', slug: 'c', event: 'updated', body: body('4'), origin: 'publish' },
      13,
    );
    expect(await store.outbox.claim(c, 'other', 20, 1000)).toBe(true);
    const taken = await store.outbox.takeMany([a1, a2, b, c], 'one', 21, 1000);
    expect(taken.map((d) => [d.id, d.body.toString()])).toEqual([
      [a1, '1'],
      [b, '3'],
    ]);
    expect(await store.outbox.takeMany([a1, a2, b], 'two', 22, 1000)).toEqual([]);
  });

  it('a claimed delivery carries the exact bytes queued, in the queuing process and in any other', async () => {
    const bytes = Buffer.from(
      JSON.stringify({ event: 'published', article: { title: 'Ünïcödé ✓', html: '<p>x</p>'.repeat(3000) } }),
    );
    const [mine, theirs] = await Promise.all(
      ['mine', 'theirs'].map((slug) =>
        store.outbox.enqueue(
          { siteId: 's', slug, event: 'published', body: Buffer.from(bytes), origin: 'publish' },
          10,
        ),
      ),
    );
    const other = openStateStore(dir, SERVER_SECRET); // another sender: reads the body from the database
    try {
      expect((await other.outbox.takeMany([theirs!], 'other', 20, 1000))[0]!.body.equals(bytes)).toBe(true);
    } finally {
      await other.close();
    }
    expect((await store.outbox.takeMany([mine!], 'one', 20, 1000))[0]!.body.equals(bytes)).toBe(true);
    // Once claimed, the queuing process reads it from the database too (a retry, a redelivery).
    expect((await store.outbox.get(mine!))!.body.equals(bytes)).toBe(true);
  });

  it('records attempts: retry keeps it pending with its next time, success settles it, a superseded one stays superseded', async () => {
    const id = await store.outbox.enqueue(
      { siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' },
      10,
    );
    const attempt = {
      url: 'https://hooks.example.com',
      startedAt: 20,
      durationMs: 5,
      status: 503,
      error: 'HTTP 503',
      replyUrl: null,
      replyId: null,
    };
    await store.outbox.recordAttempt(id, attempt, { state: 'pending', nextAttemptAt: 500 }, 25);
    expect(await store.outbox.get(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: 500,
      lastStatus: 503,
    });
    expect(await store.outbox.due(499)).toEqual([]);
    expect(await store.outbox.due(500)).toEqual([id]);
    await store.outbox.recordAttempt(
      id,
      { ...attempt, status: 200, error: null, replyUrl: 'https://site.example/a', replyId: '7' },
      { state: 'delivered' },
      600,
    );
    expect(await store.outbox.get(id)).toMatchObject({
      state: 'delivered',
      attempts: 2,
      nextAttemptAt: null,
      replyUrl: 'https://site.example/a',
      settledAt: 600,
    });
    expect((await store.outbox.attemptLog()).map((a) => a.status)).toEqual([200, 503]);

    const old = await store.outbox.enqueue(
      { siteId: 's', slug: 'b', event: 'published', body: body('1'), origin: 'publish' },
      700,
    );
    await store.outbox.enqueue({ siteId: 's', slug: 'b', event: 'published', body: body('2'), origin: 'publish' }, 701);
    await store.outbox.recordAttempt(old, { ...attempt, status: 200 }, { state: 'delivered' }, 702);
    expect((await store.outbox.get(old))!.state).toBe('superseded');
  });

  it('nothing is due for a disabled webhook', async () => {
    await store.outbox.enqueue({ siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' }, 10);
    await store.webhooks.disable('s', 'gone', 11);
    expect(await store.outbox.due(100)).toEqual([]);
  });
});

describe('locks', () => {
  it('one holder at a time; a dead holder is taken over', async () => {
    const first = tryLock(store.db, 'publish', 'one', 1);
    expect(first.acquired).toBe(true);
    store.db.prepare('UPDATE locks SET pid = ?').run(process.pid + 1_000_000); // pretend another live process…
    const other = openStateStore(dir, SERVER_SECRET);
    try {
      // …which does not exist on this host: the lock is stale and taken over.
      expect(tryLock(other.db, 'publish', 'two', 2).acquired).toBe(true);
      store.db.prepare('UPDATE locks SET pid = 1').run(); // pid 1 is alive
      const blocked = tryLock(other.db, 'publish', 'three', 3);
      expect(blocked).toMatchObject({ acquired: false, holder: { owner: 'two', pid: 1 } });
    } finally {
      await other.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'a holder that is a zombie (exited, not yet reaped) is dead: the lock is taken over',
    async () => {
      const { pid, parent } = await startZombie();
      try {
        expect(tryLock(store.db, 'publish', 'one', 1).acquired).toBe(true);
        store.db.prepare('UPDATE locks SET pid = ?').run(pid);
        const other = openStateStore(dir, SERVER_SECRET);
        try {
          expect(tryLock(other.db, 'publish', 'two', 2).acquired).toBe(true);
        } finally {
          await other.close();
        }
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );
});

describe('transactions', () => {
  it('one that awaits holds the store: other operations of the process wait for its end, and see all of it or none', async () => {
    await store.webhooks.save('s', { url: 'https://hooks.example.com', secret: 's'.repeat(30) }, 0);
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    const seen: string[][] = [];
    const tx = store.transaction(async (t) => {
      await t.outbox.enqueue({ siteId: 's', slug: 'a', event: 'published', body: body('1'), origin: 'publish' }, 10);
      await paused;
      await t.outbox.enqueue({ siteId: 's', slug: 'b', event: 'published', body: body('2'), origin: 'publish' }, 10);
    });
    const reading = store.outbox.list().then((l) => seen.push(l.map((d) => d.slug).sort()));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]); // still waiting
    release();
    await tx;
    await reading;
    expect(seen).toEqual([['a', 'b']]);

    // A failed transaction leaves nothing, and the store goes on.
    await expect(
      store.transaction(async (t) => {
        await t.outbox.enqueue({ siteId: 's', slug: 'c', event: 'published', body: body('3'), origin: 'publish' }, 10);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect((await store.outbox.list()).map((d) => d.slug).sort()).toEqual(['a', 'b']);
  });
});
