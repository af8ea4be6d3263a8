// The change log behind GET /v1/changes, on a real SQLite file: every recorded change is logged in
// order with its type and list item, in the transaction that records it, at a position of its
// site's own; retention keeps the newest entries per site, and a position before them (or after
// anything the site's log made) expires. A store from before positions were per site is renumbered.
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
let stores: SqliteStateStore[] = [];
const open = (keep?: number, at = dir) => {
  const s = openSqliteStateStore(at, SECRET, keep);
  stores.push(s);
  return s;
};
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-changes-'));
});
afterEach(() => {
  for (const s of stores) s.close();
  stores = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

const item = (slug: string, title = slug) => JSON.stringify({ slug, title });
const published = (slug: string, title?: string): RecordedChange => ({
  slug,
  state: 'published',
  payloadHash: `h-${slug}-${title ?? ''}`,
  item: item(slug, title),
});
const gone = (slug: string, state: 'withdrawn' | 'deleted'): RecordedChange => ({
  slug,
  state,
  payloadHash: null,
  item: null,
});
const page = async (s: SqliteStateStore, site: string, after = 0, limit = 100) => {
  const p = await s.changes.after(site, after, limit);
  if (p.status !== 'ok') throw new Error('expired');
  return p;
};
const story = async (s: SqliteStateStore, site: string) =>
  (await page(s, site)).entries.map((e) => `${e.type}:${e.slug}`);

describe('the change log', () => {
  it('logs each recorded change with its type (published, updated, withdrawn, deleted, published again) and item, in order', async () => {
    const s = open();
    await s.published.record('one', 'c1', [published('a'), published('b')], 1000);
    await s.published.record('one', 'c2', [published('a', 'A2')], 2000);
    await s.published.record('one', 'c3', [gone('b', 'withdrawn')], 3000);
    await s.published.record('one', 'c4', [published('b'), gone('a', 'deleted')], 4000);
    await s.published.record('two', 'c4', [published('z')], 4000);
    expect(await story(s, 'one')).toEqual([
      'published:a',
      'published:b',
      'updated:a',
      'withdrawn:b',
      'published:b',
      'deleted:a',
    ]);
    const entries = (await page(s, 'one')).entries;
    expect(entries.map((e) => e.at)).toEqual([1000, 1000, 2000, 3000, 4000, 4000]);
    expect(entries[2]!.item).toBe(item('a', 'A2'));
    expect(entries[3]!.item).toBeNull();
    expect(await story(s, 'two')).toEqual(['published:z']);
    // What the last publish recorded as published, with its items and the position it stands at.
    const now = await s.changes.publishedNow('one');
    expect(now.articles).toEqual([{ slug: 'b', item: item('b'), at: 4000 }]);
    // Positions are the site's own: site two's entry, recorded after, is not counted.
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(now.position).toBe(6);
    expect((await s.changes.publishedNow('two')).position).toBe(1);
    expect((await s.changes.publishedNow('never')).articles).toBeNull();
  });

  it('pages by position: `more` while entries wait, the next position continues, an empty page keeps it', async () => {
    const s = open();
    await s.published.record(
      'one',
      null,
      ['a', 'b', 'c', 'd', 'e'].map((x) => published(x)),
      1,
    );
    const first = await page(s, 'one', 0, 2);
    expect(first.entries.map((e) => e.slug)).toEqual(['a', 'b']);
    expect(first.more).toBe(true);
    const second = await page(s, 'one', first.position, 2);
    expect(second.entries.map((e) => e.slug)).toEqual(['c', 'd']);
    const third = await page(s, 'one', second.position, 2);
    expect([third.entries.map((e) => e.slug), third.more]).toEqual([['e'], false]);
    const empty = await page(s, 'one', third.position, 2);
    expect([empty.entries, empty.more, empty.position]).toEqual([[], false, third.position]);
  });

  it("keeps the newest entries per site; a position before them, or after any the site's log made, is expired", async () => {
    const s = open(3);
    await s.published.record('one', null, [published('a'), published('b')], 1);
    const afterA = (await page(s, 'one')).entries[0]!.seq; // a client that has read `a`
    await s.published.record('two', null, [published('z')], 1);
    await s.published.record('one', null, [published('c'), published('d')], 2);
    expect(s.db.prepare("SELECT count(*) AS n FROM article_changes WHERE site_id = 'one'").get()).toEqual({ n: 3 });
    // `a` was pruned: from before it, history is lost; from after it, nothing is.
    expect(await s.changes.after('one', 0, 10)).toEqual({ status: 'expired' });
    expect((await page(s, 'one', afterA)).entries.map((e) => e.slug)).toEqual(['b', 'c', 'd']);
    // Another site's retention is its own.
    expect(await story(s, 'two')).toEqual(['published:z']);
    // From the future (a restored store, or a cursor made up): expired, not an empty page.
    expect(await s.changes.after('one', (await s.changes.publishedNow('one')).position + 1, 10)).toEqual({
      status: 'expired',
    });
  });

  it('forgetting a site drops its history and expires its positions', async () => {
    const s = open();
    await s.published.record('one', null, [published('a')], 1);
    await s.published.forget('one');
    expect(await s.changes.after('one', 0, 10)).toEqual({ status: 'expired' });
    expect((await s.changes.publishedNow('one')).articles).toBeNull();
  });

  it('records and logs in one transaction: a failed one leaves neither', async () => {
    const s = open();
    await expect(
      s.transaction(async (tx) => {
        await tx.published.record('one', null, [published('a')], 1);
        throw new Error('queueing failed');
      }),
    ).rejects.toThrow('queueing failed');
    expect(await story(s, 'one')).toEqual([]);
    expect(await s.published.get('one')).toBeNull();
  });

  it('a store from before positions were per site: each site renumbered in order and going on from there, old cursors expired', async () => {
    const old = new Database(path.join(dir, STATE_DB_FILE));
    MIGRATIONS.slice(0, 6).forEach((sql) => old.exec(sql));
    old.pragma('user_version = 6');
    const log = old.prepare('INSERT INTO article_changes (site_id, slug, type, item, at) VALUES (?, ?, ?, ?, ?)');
    // One numbering for both sites, as it was: one 1, 2, 4, 6, 7; two 3, 5, 8 (then one's 1 pruned).
    for (const [site, slug, type] of [
      ['one', 'a', 'published'],
      ['one', 'b', 'published'],
      ['two', 'z', 'published'],
      ['one', 'a', 'updated'],
      ['two', 'z', 'updated'],
      ['one', 'b', 'withdrawn'],
      ['one', 'c', 'published'],
      ['two', 'y', 'published'],
    ] as const) {
      log.run(site, slug, type, type === 'withdrawn' ? null : item(slug), 10);
    }
    old.prepare('DELETE FROM article_changes WHERE seq = 1').run();
    old.prepare("INSERT INTO article_changes_pruned (site_id, through) VALUES ('one', 1)").run();
    // A site whose history was forgotten: nothing left, its positions expired.
    old.prepare("INSERT INTO article_changes_pruned (site_id, through) VALUES ('gone', 8)").run();
    const oldId = old.prepare<[], { id: string }>('SELECT id FROM store_identity').get()!.id;
    old.close();

    const s = open();
    expect(await s.changes.storeId()).not.toBe(oldId); // every cursor made before answers 410
    const one = await page(s, 'one');
    expect(one.entries.map((e) => `${e.seq}:${e.type}:${e.slug}`)).toEqual([
      '1:published:b',
      '2:updated:a',
      '3:withdrawn:b',
      '4:published:c',
    ]);
    expect((await page(s, 'two')).entries.map((e) => `${e.seq}:${e.type}:${e.slug}`)).toEqual([
      '1:published:z',
      '2:updated:z',
      '3:published:y',
    ]);
    expect((await s.changes.publishedNow('one')).position).toBe(4);
    expect((await s.changes.publishedNow('gone')).position).toBe(0);
    expect(await s.changes.after('one', 5, 10)).toEqual({ status: 'expired' });
    // Recording goes on from each site's own newest position.
    await s.published.record('two', null, [published('x')], 20);
    await s.published.record('one', null, [published('d')], 20);
    expect((await page(s, 'one', 4)).entries.map((e) => `${e.seq}:${e.slug}`)).toEqual(['5:d']);
    expect((await page(s, 'two', 3)).entries.map((e) => `${e.seq}:${e.slug}`)).toEqual(['4:x']);
  });

  it('each store has its own identity, kept across reopening', async () => {
    const s = open();
    const id = await s.changes.storeId();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    s.close();
    stores = [];
    expect(await open().changes.storeId()).toBe(id);
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-changes-'));
    try {
      expect(open(undefined, other).changes.storeId()).not.toBe(id);
    } finally {
      for (const x of stores.splice(1)) x.close();
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
