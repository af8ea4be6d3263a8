// `quire state backup` end to end: taken while a real server process delivers from the outbox,
// then restored into a fresh state folder as docs/server.md says, and used there.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/state-store.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = RECEIVER_SECRET;
const ARTICLES = 24;
const setup = useReceiverProject();
let receiver: HttpsReceiver;
let p: TempProject;
beforeEach(() => {
  receiver = setup.receiver();
});
const env = (stateDir?: string) => setup.env(stateDir);
const quire = (args: string[], stateDir?: string) => runCli(args, env(stateDir));

describe('quire state backup', { timeout: 120_000 }, () => {
  it('copies a consistent state while the server delivers; the copy restores and works', async () => {
    p = setup.project.current = createTempProject({ git: true });
    writeSite(p, 'one');
    for (let i = 0; i < ARTICLES; i++)
      p.write(`one/articles/a${i}.md`, article({ title: `A${i}`, status: 'published' }));
    p.commit('first', '2026-03-01T10:00:00Z');
    expect(
      (await quire(['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hooks`, '--secret', SECRET]))
        .code,
    ).toBe(0);
    const rotated = await quire(['keys', 'rotate', 'one']);
    const key = rotated.stdout.trim().split('\n').at(-1)!;
    receiver.respond(() => ({ status: 503 }));
    expect((await quire(['publish'])).code).toBe(1); // every delivery pending, due again in about 2 s
    receiver.respond(() => ({ status: 200, delayMs: 150 }));
    receiver.requests.length = 0;

    const backupDir = path.join(p.root, 'backups', 'state-1');
    const server = await startCli(['start'], { ...env(), PORT: '0' }, /Content API on/);
    let backup: Awaited<ReturnType<typeof quire>>;
    try {
      // The server's worker is sending (and writing each attempt) while the backup is taken.
      for (let i = 0; i < 400 && receiver.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      backup = await quire(['state', 'backup', backupDir]);
      expect(receiver.requests.length).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(
      new RegExp(`Backed up .* to ${backupDir}: quire.db, keys.json, secret \\(1 webhook, ${ARTICLES} deliveries\\)`),
    );
    expect(fs.readdirSync(backupDir).sort()).toEqual(['keys.json', 'quire.db', 'secret']);
    for (const f of fs.readdirSync(backupDir)) expect(fs.statSync(path.join(backupDir, f)).mode & 0o077).toBe(0);

    // One moment's state: every delivery is there, and each delivered one has its attempt.
    const copy = new Database(path.join(backupDir, 'quire.db'), { readonly: true });
    const rows = copy
      .prepare(
        `SELECT d.state, (SELECT count(*) FROM attempts a WHERE a.delivery_id = d.id AND a.status = 200) AS ok FROM deliveries d`,
      )
      .all() as { state: string; ok: number }[];
    copy.close();
    expect(rows).toHaveLength(ARTICLES);
    for (const r of rows) expect(r.state === 'delivered' ? r.ok : 0).toBe(r.state === 'delivered' ? 1 : 0);
    // The store's copy of the rotation too: restored without keys.json, it is still known.
    const generations = new Database(path.join(backupDir, 'quire.db'), { readonly: true });
    expect(generations.prepare('SELECT name, generation FROM key_generations').all()).toEqual([
      { name: 'one', generation: 2 },
    ]);
    generations.close();

    // Restore as docs/server.md says: a new state folder, the backup's files copied in.
    const restored = path.join(p.root, 'restored-state');
    fs.mkdirSync(restored, { mode: 0o700 });
    for (const f of fs.readdirSync(backupDir)) fs.copyFileSync(path.join(backupDir, f), path.join(restored, f));
    const keys = await quire(['keys', '--site', 'one'], restored);
    expect(keys.stdout.trim().split('\t').slice(0, 2)).toEqual(['one', key]); // the rotated generation survived
    const store = openStateStore(restored, fs.readFileSync(path.join(restored, 'secret'), 'utf8').trim());
    try {
      expect(await store.webhooks.secretOf('one')).toBe(SECRET);
      const counts = await store.outbox.counts('one');
      expect(counts.pending + counts.delivered).toBe(ARTICLES);
    } finally {
      await store.close();
    }
    // And the restored outbox still sends: what was pending at the backup goes out now.
    const retried = await quire(['deliveries', 'retry', '--site', 'one'], restored);
    expect(retried.code, retried.stderr).toBe(0);

    // Restored without its keys.json: refused, not served with the key rotated away; `keys restore` brings it back.
    const withoutKeys = path.join(p.root, 'restored-without-keys');
    fs.mkdirSync(withoutKeys, { mode: 0o700 });
    for (const f of ['quire.db', 'secret']) fs.copyFileSync(path.join(backupDir, f), path.join(withoutKeys, f));
    const refused = await quire(['keys', '--site', 'one'], withoutKeys);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${path.join(withoutKeys, 'keys.json')} is missing, but the state store`);
    expect((await quire(['keys', 'restore'], withoutKeys)).code).toBe(0);
    expect((await quire(['keys', '--site', 'one'], withoutKeys)).stdout.trim().split('\t').slice(0, 2)).toEqual([
      'one',
      key,
    ]);
  });

  it('refuses to overwrite unless --force, and --force replaces only an earlier backup', async () => {
    p = setup.project.current = createTempProject();
    writeSite(p, 'one');
    let r = await quire(['state', 'backup', path.join(p.root, 'b')]);
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/no state to back up: .*quire\.db does not exist/)]);
    expect(
      (await quire(['webhook', 'set', 'one', '--url', `https://127.0.0.1:${receiver.port}/hooks`, '--secret', SECRET]))
        .code,
    ).toBe(0);
    const target = path.join(p.root, 'b');
    expect((await quire(['state', 'backup', target])).code).toBe(0);
    r = await quire(['state', 'backup', target]);
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringContaining(`${target} already exists; nothing was written (--force replaces an earlier backup)`),
    ]);
    r = await quire(['state', 'backup', target, '--force']);
    expect(r.code, r.stderr).toBe(0);
    const other = path.join(p.root, 'notes.txt');
    fs.writeFileSync(other, 'keep me');
    r = await quire(['state', 'backup', other, '--force']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('is not a Quire state backup')]);
    expect(fs.readFileSync(other, 'utf8')).toBe('keep me');
    expect(fs.readdirSync(p.root).filter((f) => f.includes('.tmp-'))).toEqual([]);
    for (const args of [['state'], ['state', 'backup'], ['state', 'restore', 'x']])
      expect((await quire(args)).code, args.join(' ')).toBe(2);
  });
});
