// A PostgreSQL state restored from `pg_dump` is another store for the change feed: a client's
// cursor from after the dump must not be read in the restored database, whose log went back to
// the dump and goes on with other changes at the same positions (the client would skip them
// silently). Real parts: Debian's pg_dump and pg_restore against the test server, `quire publish`
// and `quire start` on a real git repository. The cursor taken after the dump answers 410
// CURSOR_EXPIRED in a restored database, in a new one, in the original restored in place
// (`pg_restore --clean`) and in the original name re-created (the URL unchanged), even after the
// restored log has grown past its position; in the database itself it stays valid across server
// restarts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeedSchema } from '../../src/contract/changes.ts';
import { ErrorResponseSchema } from '../../src/contract/error.ts';
import { findPostgresBin } from '../helpers/postgres-server.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { testDatabaseUrl } from '../helpers/test-store.ts';

const SECRET = 's'.repeat(40);
const bin = (name: string) => path.join(findPostgresBin()!, name);
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function adminSql(sql: string): void {
  execFileSync(bin('psql'), [process.env.QUIRE_TEST_POSTGRES_URL!, '-qAtc', sql], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
const urlOf = (base: string, database: string) => Object.assign(new URL(base), { pathname: `/${database}` }).toString();
const databaseOf = (url: string) => new URL(url).pathname.slice(1);

async function get(url: string, key: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('a pg_dump restore and change-feed cursors', { timeout: 120_000 }, () => {
  let p: TempProject;
  const envFor = (url: string) => ({
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_DATABASE_URL: url,
    QUIRE_SECRET: SECRET,
    PORT: '0',
  });
  const cli = async (url: string, ...args: string[]) => {
    const r = await runCli(args, envFor(url));
    expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };
  /** A server on `url` for the length of `work`. */
  const serving = async <T>(url: string, work: (api: string) => Promise<T>): Promise<T> => {
    const server = await startCli(['start'], envFor(url), /Content API on (\S+)\/v1/);
    try {
      return await work(`${server.match[1]}/v1`);
    } finally {
      await server.stop();
    }
  };
  const publishEdit = async (url: string, file: string, title: string, date: string) => {
    p.write(file, article({ title, status: 'published', publishedAt: '2026-01-01' }));
    p.commit(title, date);
    await cli(url, 'publish');
  };

  it('a cursor from after the dump answers 410 CURSOR_EXPIRED in a restored database (a new one, the original restored in place, or the name re-created); in its own it survives restarts', async () => {
    p = createTempProject({ git: true });
    cleanups.push(() => p.cleanup());
    writeSite(p, 'one');
    p.write('one/articles/a.md', article({ title: 'A', status: 'published', publishedAt: '2026-01-01' }));
    p.commit('first', '2026-01-02T00:00:00Z');
    const original = testDatabaseUrl(p.stateDir)!;
    await cli(original, 'publish');
    const key = (JSON.parse(await cli(original, 'keys', '--json')) as { site: string; key: string }[]).find(
      (k) => k.site === 'one',
    )!.key;

    // The dump, then a change after it, and the client's cursor past that change.
    const dumpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-dump-'));
    cleanups.push(() => fs.rmSync(dumpDir, { recursive: true, force: true }));
    const dump = path.join(dumpDir, 'state.dump');
    execFileSync(bin('pg_dump'), ['--format=custom', `--file=${dump}`, `--dbname=${original}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await publishEdit(original, 'one/articles/a.md', 'A, revised after the dump', '2026-01-03T00:00:00Z');
    const cursor = await serving(original, async (api) => {
      const start = ChangeFeedSchema.parse((await get(`${api}/changes`, key)).body);
      expect(start.changes.map((c) => c.slug)).toEqual(['a']);
      return start.cursor;
    });
    // The same database after a restart: the same store, the cursor goes on (nothing new yet).
    await serving(original, async (api) => {
      const again = await get(`${api}/changes?since=${cursor}`, key);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(ChangeFeedSchema.parse(again.body)).toMatchObject({ changes: [], cursor, more: false });
    });

    /** Restores the dump into `url`'s database, publishes a change there (its log grows over the cursor's position) and asks with the cursor. */
    const afterRestore = async (url: string, title: string, options: string[] = []) => {
      execFileSync(bin('pg_restore'), ['--no-owner', ...options, `--dbname=${url}`, dump], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Restored: the log stands at the dump, before the edit; the content repository is past it.
      await publishEdit(url, 'one/articles/b.md', title, '2026-01-04T00:00:00Z');
      return serving(url, async (api) => {
        const asked = await get(`${api}/changes?since=${cursor}`, key);
        // The restored store's own cursors work: its current state, then what comes after.
        const fresh = ChangeFeedSchema.parse((await get(`${api}/changes`, key)).body);
        expect(fresh.changes.map((c) => c.slug).sort()).toEqual(['a', 'b']);
        const next = await get(`${api}/changes?since=${fresh.cursor}`, key);
        expect(next.status).toBe(200);
        return asked;
      });
    };
    const expectExpired = (asked: { status: number; body: unknown }) => {
      expect(asked.status, JSON.stringify(asked.body)).toBe(410);
      const { error } = ErrorResponseSchema.parse(asked.body);
      expect(error).toMatchObject({ status: 410, code: 'CURSOR_EXPIRED' });
      expect(error.message).toMatch(/restored from a backup\): resync/);
    };

    // Into a new database on the same server.
    const copy = urlOf(original, `${databaseOf(original)}_restored`);
    adminSql(`CREATE DATABASE ${databaseOf(copy)}`);
    cleanups.push(() => adminSql(`DROP DATABASE IF EXISTS ${databaseOf(copy)} WITH (FORCE)`));
    expectExpired(await afterRestore(copy, 'B, in the restored copy'));

    // Into the original database itself, its tables dropped and made again (`--clean`): the same
    // database and OID, but not the same store.
    expectExpired(await afterRestore(original, 'B, restored in place', ['--clean', '--if-exists']));

    // Into the original's name, dropped and made again: the URL every process has is unchanged.
    adminSql(`DROP DATABASE ${databaseOf(original)} WITH (FORCE)`);
    adminSql(`CREATE DATABASE ${databaseOf(original)}`);
    expectExpired(await afterRestore(original, 'B, in the re-created database'));
  });
});
