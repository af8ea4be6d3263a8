// The client's change feed against a real `quire start`, fed by real `quire publish` runs over a
// real git repository (with a real HTTPS receiver, as publishes record for sites with a webhook):
// one answer, following cursors page by page until caught up, and the typed errors.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  QuireApiError,
  QuireCursorExpiredError,
  type ArticleChange,
  type ChangeFeed,
} from '../../src/client/index.ts';
import { openSqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();

describe('the client and the change feed', { timeout: 90_000 }, () => {
  it('reads the state, follows cursors until caught up, and throws typed errors for expired and foreign cursors', async () => {
    const p = (project.current = createTempProject({ git: true }));
    const post = (title: string, status = 'published') => article({ title, status, publishedAt: '2026-01-01' });
    p.write('one/site.yaml', 'name: One\nlang: en\nurl: https://one.example.com\n');
    p.write('one/articles/a.md', post('A'));
    p.write('one/articles/b.md', post('B'));
    p.commit('content', '2026-01-02T00:00:00Z');
    const e = { ...env(), QUIRE_SECRET: 's'.repeat(40), PORT: '0' };
    const cli = async (...args: string[]) => {
      const r = await runCli(args, e);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    await cli(
      'webhook',
      'set',
      'one',
      '--url',
      `${receiver().url}/hooks`,
      '--secret',
      RECEIVER_SECRET,
      '--extra-events',
    );
    const [keys] = JSON.parse(await cli('keys', '--json')) as { key: string; previewKey: string }[];
    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const quire = createClient({ baseUrl: server.match[1]!, key: keys!.key });
      const first = await quire.changes();
      expectTypeOf(first).toEqualTypeOf<ChangeFeed>();
      expect(first.changes.map((c) => `${c.type}:${c.slug}`).sort()).toEqual(['published:a', 'published:b']);

      await cli('publish');
      p.write('one/articles/a.md', post('A, revised'));
      p.write('one/articles/c.md', post('C'));
      p.commit('edit a, add c', '2026-01-03T00:00:00Z');
      await cli('publish');
      p.write('one/articles/b.md', post('B', 'draft'));
      p.commit('b back to draft', '2026-01-04T00:00:00Z');
      await cli('publish');

      // Three changes (the first state was recorded when the server loaded its build), two per
      // answer: two answers, the last one saying nothing more waits.
      const answers: ChangeFeed[] = [];
      for await (const answer of quire.followChanges({ since: first.cursor, limit: 2 })) answers.push(answer);
      expect(answers.map((a) => [a.changes.length, a.more])).toEqual([
        [2, true],
        [1, false],
      ]);
      const changes: ArticleChange[] = answers.flatMap((a) => a.changes);
      const story = changes.map((c) => `${c.type}:${c.slug}`);
      expect(story.slice(0, 2).sort()).toEqual(['published:c', 'updated:a']);
      expect(story[2]).toBe('withdrawn:b');
      expect(changes.find((c) => c.type === 'updated')).toMatchObject({
        slug: 'a',
        id: 'a',
        article: { title: 'A, revised' },
      });
      // What the client gives is what the server sent.
      const raw = await fetch(`${server.match[1]}/v1/changes?since=${first.cursor}&limit=1000`, {
        headers: { authorization: `Bearer ${keys!.key}` },
      });
      expect(((await raw.json()) as ChangeFeed).changes).toEqual(changes);

      // Caught up: one answer, empty, with the same cursor.
      const last = answers.at(-1)!.cursor;
      const again: ChangeFeed[] = [];
      for await (const answer of quire.followChanges({ since: last })) again.push(answer);
      expect(again).toEqual([{ changes: [], cursor: last, more: false }]);

      // A malformed cursor and a preview key: API errors with their codes.
      await expect(quire.changes({ since: 'not-a-cursor' })).rejects.toMatchObject({
        code: 'CURSOR_INVALID',
        status: 400,
      });
      await expect(createClient({ baseUrl: server.match[1]!, key: keys!.previewKey }).changes()).rejects.toMatchObject({
        code: 'CHANGES_SITE_KEY_ONLY',
        status: 403,
      });

      // History pruned past the first cursor: QuireCursorExpiredError; without `since`, a resync.
      const store = openSqliteStateStore(p.stateDir, e.QUIRE_SECRET, 1);
      try {
        store.published.record(
          'one',
          null,
          [{ slug: 'c', state: 'withdrawn', payloadHash: null, item: null }],
          Date.now(),
        );
      } finally {
        store.close();
      }
      const expired = await (async () => {
        for await (const _ of quire.followChanges({ since: first.cursor })) return null;
      })().catch((err: unknown) => err);
      expect(expired).toBeInstanceOf(QuireCursorExpiredError);
      expect(expired).toBeInstanceOf(QuireApiError);
      expect(expired).toMatchObject({ code: 'CURSOR_EXPIRED', status: 410, kind: 'api' });
      const resync = await quire.changes();
      expect(resync.changes.map((c) => c.slug)).toEqual(['a']);
      expect((await quire.changes({ since: resync.cursor })).changes).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
