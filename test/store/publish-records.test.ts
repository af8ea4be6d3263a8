// A site's two records on a real SQLite file: what its last publish recorded (the change feed's
// state) and what its webhook receiver was last sent, which only publishes with a webhook advance.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATE_DB_FILE } from '../../src/config/state-layout.ts';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { openSqliteStateStore, type SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.ts';
import type { RecordedChange } from '../../src/store/state-store.ts';

const SECRET = 'x'.repeat(40);
let dir: string;
let store: SqliteStateStore | null = null;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-records-'));
});
afterEach(async () => {
  await store?.close();
  store = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const published = (slug: string, hash = `h-${slug}`): RecordedChange => ({
  slug,
  state: 'published',
  payloadHash: hash,
  item: JSON.stringify({ slug }),
});
const states = (r: { articles: Map<string, { state: string; payloadHash: string | null }> } | null) =>
  r ? Object.fromEntries([...r.articles].map(([s, a]) => [s, `${a.state}:${a.payloadHash}`])) : null;

describe('publish records', () => {
  it('records the feed for every publish, and what was sent only when something was queued for a webhook', async () => {
    store = openSqliteStateStore(dir, SECRET);
    // No webhook: the feed's state and log advance, what was sent stays unknown.
    await store.published.record('one', 'c1', [published('a'), published('b')], 1000, null);
    expect(await store.published.get('one')).toBeNull();
    expect(states(await store.published.feedState('one'))).toEqual({ a: 'published:h-a', b: 'published:h-b' });
    // A webhook's first publish: everything sent, nothing new for the feed.
    await store.published.record('one', 'c2', [], 2000, [published('a'), published('b')]);
    expect(await store.published.get('one')).toMatchObject({ commit: 'c2', publishedAt: 2000 });
    expect(states(await store.published.get('one'))).toEqual({ a: 'published:h-a', b: 'published:h-b' });
    // Without a webhook again: the feed moves on, what was sent stays at c2.
    await store.published.record('one', 'c3', [published('a', 'h-a2')], 3000, null);
    expect(await store.published.get('one')).toMatchObject({ commit: 'c2', publishedAt: 2000 });
    expect(states(await store.published.feedState('one'))).toMatchObject({ a: 'published:h-a2' });
    const log = await store.changes.after('one', 0, 10);
    expect(log.status === 'ok' && log.entries.map((e) => `${e.type}:${e.slug}`)).toEqual([
      'published:a',
      'published:b',
      'updated:a',
    ]);
    // Omitted, what was sent is the same changes.
    await store.published.record('two', null, [published('z')], 4000);
    expect(states(await store.published.get('two'))).toEqual(states(await store.published.feedState('two')));
    await store.published.forget('one');
    expect([await store.published.get('one'), await store.published.feedState('one')]).toEqual([null, null]);
  });

  it('keeps the build the feed state stands for until a recording names another', async () => {
    store = openSqliteStateStore(dir, SECRET);
    await store.published.record('one', 'c1', [published('a')], 1000, null);
    expect((await store.published.feedState('one'))!.build).toBeNull();
    await store.published.record('one', 'c1', [published('a', 'h-a2')], 2000, null, { id: 'b1', builtAt: 1500 });
    expect((await store.published.feedState('one'))!.build).toEqual({ id: 'b1', builtAt: 1500 });
    // A go-live recorded from the same build, or a recording that names none: the build stays.
    await store.published.record('one', 'c1', [published('b')], 3000, null);
    expect((await store.published.feedState('one'))!.build).toEqual({ id: 'b1', builtAt: 1500 });
    await store.published.record('one', 'c2', [], 4000, [], { id: 'b2', builtAt: 3500 });
    expect(await store.published.feedState('one')).toMatchObject({ commit: 'c2', build: { id: 'b2', builtAt: 3500 } });
  });

  it('a store from before keeps what its webhooks were sent: the record it had', async () => {
    const file = path.join(dir, STATE_DB_FILE);
    const old = new Database(file);
    MIGRATIONS.slice(0, 4).forEach((sql) => old.exec(sql));
    old.pragma('user_version = 4');
    old
      .prepare('INSERT INTO published_sites (site_id, commit_sha, published_at) VALUES (?, ?, ?)')
      .run('one', 'c1', 1000);
    old
      .prepare(
        'INSERT INTO published_articles (site_id, slug, state, payload_hash, item, changed_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run('one', 'a', 'published', 'h-a', '{}', 1000);
    old.close();
    store = openSqliteStateStore(dir, SECRET);
    expect(await store.published.get('one')).toMatchObject({ commit: 'c1', publishedAt: 1000 });
    expect(states(await store.published.get('one'))).toEqual({ a: 'published:h-a' });
    expect(states(await store.published.feedState('one'))).toEqual({ a: 'published:h-a' });
    expect((await store.published.feedState('one'))!.build).toBeNull(); // not known: recorded before builds were
  });
});
