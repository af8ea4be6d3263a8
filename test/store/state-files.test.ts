// State on disk that cannot be read fails closed, with the file named: an empty, damaged or
// foreign quire.db is never taken for a new store; the Content API keeps serving when only the
// delivery state is broken; a state dir that cannot be written fails a build before dist/ is
// replaced. Real SQLite files, the real CLI in child processes.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const env = (extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  PORT: '0',
  ...extra,
});
const dbFile = () => path.join(p.stateDir, 'quire.db');

/** A project with one webhook registered (the state store exists and holds it). */
async function withWebhook(): Promise<void> {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
  const set = await runCli(
    ['webhook', 'set', 'one', '--url', 'https://127.0.0.1:9/hook', '--secret', 'a-receiver-secret-0123456789'],
    env(),
  );
  expect(set.code, set.stderr).toBe(0);
  expect((await runCli(['webhook', 'show'], env())).stdout).toMatch(/^one\thttps:\/\/127\.0\.0\.1:9\/hook/m);
  for (const f of [`${dbFile()}-wal`, `${dbFile()}-shm`]) fs.rmSync(f, { force: true });
}

describe('quire.db that cannot be read', { timeout: 60_000 }, () => {
  it('0 bytes: refused with the file named, not recreated empty', async () => {
    await withWebhook();
    fs.writeFileSync(dbFile(), '');
    const r = await runCli(['webhook', 'show'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${dbFile()} is empty (0 bytes): the webhook registrations`);
    expect(r.stdout).not.toMatch(/no webhooks registered/);
    expect(fs.statSync(dbFile()).size).toBe(0); // left for the operator to restore
  });

  it('truncated, random bytes or a foreign SQLite file: refused with the file named', async () => {
    await withWebhook();
    const good = fs.readFileSync(dbFile());
    const foreign = path.join(p.root, 'foreign.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE notes (x TEXT)');
    other.close();
    const damages: [string, Buffer, RegExp][] = [
      [
        'truncated',
        good.subarray(0, Math.floor(good.length / 2)),
        /cannot be read as Quire's state store \(database disk image is malformed\)/,
      ],
      ['random bytes', randomBytes(good.length), /cannot be read as Quire's state store \(file is not a database\)/],
      ['foreign', fs.readFileSync(foreign), /is not a Quire state store/],
    ];
    for (const [what, bytes, message] of damages) {
      fs.writeFileSync(dbFile(), bytes);
      for (const args of [['webhook', 'show'], ['deliveries'], ['publish']]) {
        const r = await runCli(args, env());
        expect(r.code, `${what}: ${args.join(' ')}`).not.toBe(0);
        expect(r.stderr, `${what}: ${args.join(' ')}`).toContain(dbFile());
        expect(r.stderr, `${what}: ${args.join(' ')}`).toMatch(message);
      }
    }
  });

  it('the Content API keeps serving when only the delivery state is broken', async () => {
    await withWebhook();
    fs.writeFileSync(dbFile(), randomBytes(8192));
    const server = await startCli(['start'], env(), /curl -H "Authorization: Bearer (\S+)" (\S+)\n/);
    try {
      // The notice goes to stderr and the ready line to stdout: two pipes, no order between them.
      await vi.waitFor(() => {
        expect(server.output()).toContain(`${dbFile()} cannot be read as Quire's state store`);
        expect(server.output()).toMatch(/The Content API is served; webhook delivery and the Publishing app are off/);
      });
      const [, key, url] = server.match;
      const list = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { total: number }).total).toBe(1);
      const admin = await fetch(new URL('/admin/', url).href);
      expect(admin.status).toBe(503);
      expect(await admin.text()).not.toContain(p.root); // the details are in the log only
      // Alive, but not ready: the load balancer's check sees it, without the file's path.
      expect((await fetch(new URL('/healthz', url).href)).status).toBe(200);
      const ready = await fetch(new URL('/readyz', url).href);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        ready: false,
        reason: 'the state database cannot be read; see the server log',
      });
    } finally {
      await server.stop();
    }
  });
});

describe('a state dir that cannot be written', { timeout: 60_000 }, () => {
  // Root (which runs these tests) ignores permission bits, so a file stands where the state
  // dir's cache folder should be: every write there fails. This proves the order (a build
  // whose state cannot be saved replaces nothing), not the permission check itself.
  it('fails the build with the file named, before dist/ is replaced', async () => {
    p = createTempProject();
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'Before', status: 'published', publishedAt: '2026-01-01' }));
    expect((await runCli(['build'], env())).code).toBe(0);
    p.write('one/articles/a.md', article({ title: 'After', status: 'published', publishedAt: '2026-01-01' }));
    fs.rmSync(path.join(p.stateDir, 'cache'), { recursive: true });
    fs.writeFileSync(path.join(p.stateDir, 'cache'), 'not a folder');
    const r = await runCli(['build'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`could not save the build state to ${path.join(p.stateDir, 'cache', 'build-state.v8')}`);
    expect(r.stderr).toMatch(/dist\/ was left as it was/);
    const served = JSON.parse(fs.readFileSync(path.join(p.distDir, 'one', 'articles', 'a.json'), 'utf8')) as {
      title: string;
    };
    expect(served.title).toBe('Before');
  });
});
