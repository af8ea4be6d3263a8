// A state restored from `quire state backup` is a new store for the change feed: its log goes
// back to the backup's moment and then grows again over the same positions, so a cursor made
// before the restore could skip or repeat changes. Through real parts (a git repository, `quire
// publish`, `quire state backup`, a restore as docs/server.md says, `quire start`): every cursor made
// before a restore answers 410 CURSOR_EXPIRED, even once the log has grown past its position,
// and restoring the same backup twice makes two different stores.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeedSchema } from '../../src/contract/changes.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject | null = null;
afterEach(() => p?.cleanup());
const post = (title: string) => article({ title, status: 'published', publishedAt: '2026-01-01' });

describe('a restored state and change-feed cursors', { timeout: 120_000 }, () => {
  it('expires every cursor made before the restore, once the log has grown past it too', async () => {
    const project = (p = createTempProject({ git: true }));
    const e = {
      QUIRE_CONTENT_DIR: project.contentDir,
      QUIRE_DIST_DIR: project.distDir,
      QUIRE_STATE_DIR: project.stateDir,
      QUIRE_SECRET: 's'.repeat(40),
      PORT: '0',
    };
    const cli = async (...args: string[]) => {
      const r = await runCli(args, e);
      expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    let commits = 0;
    const publishArticles = async (...slugs: string[]) => {
      for (const slug of slugs) project.write(`one/articles/${slug}.md`, post(`${slug} ${commits}`));
      project.commit(`write ${slugs.join(', ')}`, `2026-01-${String(2 + commits++).padStart(2, '0')}T00:00:00Z`);
      await cli('publish');
    };
    const restore = (backupDir: string) => {
      // As docs/server.md says: move the state aside, copy the backup's files into a new folder.
      fs.renameSync(project.stateDir, `${project.stateDir}.old-${commits}`);
      fs.mkdirSync(project.stateDir, { mode: 0o700 });
      for (const f of fs.readdirSync(backupDir))
        fs.copyFileSync(path.join(backupDir, f), path.join(project.stateDir, f));
    };
    const serve = async <T>(
      work: (get: (query: string) => Promise<{ status: number; body: Record<string, unknown> }>) => Promise<T>,
    ) => {
      const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
      try {
        return await work(async (query) => {
          const res = await fetch(`${server.match[1]}/v1/changes${query}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        });
      } finally {
        await server.stop();
      }
    };
    const feed = (a: { status: number; body: unknown }) => {
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      return ChangeFeedSchema.parse(a.body);
    };
    const expired = (a: { status: number; body: Record<string, unknown> }) => [
      a.status,
      (a.body.error as { code?: string } | undefined)?.code,
    ];

    writeSite(project, 'one');
    await publishArticles('a');
    const key = (JSON.parse(await cli('keys', '--json')) as { site: string; key: string }[])[0]!.key;
    const early = await serve(async (get) => feed(await get('')).cursor);
    const backupDir = path.join(project.root, 'backups', 'state-1');
    await cli('state', 'backup', backupDir);
    await publishArticles('a', 'b', 'c'); // after the backup: three positions the backup does not have
    const late = await serve(async (get) => {
      const after = feed(await get(`?since=${early}`));
      expect(after.changes.map((c) => `${c.type}:${c.slug}`)).toEqual(['updated:a', 'published:b', 'published:c']);
      return after.cursor;
    });

    restore(backupDir);
    await publishArticles('a', 'd', 'e', 'f'); // the restored log grows past `late`'s position
    const resynced = await serve(async (get) => {
      expect(expired(await get(`?since=${late}`))).toEqual([410, 'CURSOR_EXPIRED']);
      expect(expired(await get(`?since=${early}`))).toEqual([410, 'CURSOR_EXPIRED']);
      // Resync: the restored state as it is now, and a cursor that works.
      const now = feed(await get(''));
      expect(now.changes.map((c) => c.slug).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
      expect(feed(await get(`?since=${now.cursor}`)).changes).toEqual([]);
      return now.cursor;
    });

    // The same backup restored again is yet another store.
    restore(backupDir);
    await publishArticles('a', 'g', 'h', 'i', 'j', 'k');
    await serve(async (get) => {
      expect(expired(await get(`?since=${resynced}`))).toEqual([410, 'CURSOR_EXPIRED']);
      expect(
        feed(await get(''))
          .changes.map((c) => c.slug)
          .sort(),
      ).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']);
    });
    // The backup is still only its files (no journal left beside the copy), ready for a third.
    expect(fs.readdirSync(backupDir)).toEqual(['quire.db']);
  });
});
