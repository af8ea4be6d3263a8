// GET /v1/changes on a running `quire start`, fed by real `quire publish` runs over a real git
// repository, with a real HTTPS receiver: over a run of publishes (publish, edit, add, withdraw
// to draft, delete, publish again, a scheduled go-live and an expiry at their instants) the
// webhooks the receiver got and the feed's entries tell the same story. Then the feed's edges:
// cursors that continue, expire (retention), are malformed or another site's; keys that may not read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/api/change-cursor.ts';
import { ChangeFeedSchema, type ArticleChange } from '../../src/contract/changes.ts';
import { ArticleListSchema } from '../../src/contract/article.ts';
import { openSqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.ts';
import { buildTwoSites } from './fixture.ts';
import { startTestApi } from '../helpers/api-server.ts';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}
async function get(url: string, key: string | null): Promise<Answer> {
  const res = await fetch(url, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}
const codeOf = (a: Answer) => (a.body.error as { code: string }).code;

/** Every change after `cursor`, following `more`, `limit` at a time: the entries and the last cursor. */
async function follow(api: string, key: string, cursor: string, limit: number) {
  const changes: ArticleChange[] = [];
  for (let pages = 0; pages < 100; pages++) {
    const a = await get(`${api}/changes?since=${cursor}&limit=${limit}`, key);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const feed = ChangeFeedSchema.parse(a.body);
    expect(feed.changes.length).toBeLessThanOrEqual(limit);
    changes.push(...feed.changes);
    cursor = feed.cursor;
    if (!feed.more) return { changes, cursor };
  }
  throw new Error('the feed never caught up');
}

/** What the receiver got for a site, in the feed's words (`unpublished` is `withdrawn`). */
function webhookStory(site: string) {
  return receiver()
    .requests.filter((r) => r.path === `/hooks/${site}`)
    .map((r) => {
      const body = JSON.parse(r.rawBody.toString()) as {
        event: string;
        article: { slug: string; title?: string; metaDescription?: string; imageUrl?: string; imageAlt?: string };
      };
      return {
        type: body.event === 'unpublished' ? 'withdrawn' : body.event,
        slug: body.article.slug,
        article: body.article,
      };
    });
}
const bySlug = <T extends { slug: string }>(entries: T[]) => {
  const out: Record<string, T[]> = {};
  for (const e of entries) (out[e.slug] ??= []).push(e);
  return out;
};
const types = (entries: { slug: string; type: string }[]) =>
  Object.fromEntries(Object.entries(bySlug(entries)).map(([slug, es]) => [slug, es.map((e) => e.type)]));

describe('the change feed on a running server', { timeout: 120_000 }, () => {
  it('tells the story the webhooks tell, over a run of publishes; its cursors continue, expire and stay with their site', async () => {
    const p = (project.current = createTempProject({ git: true }));
    const goLive = Math.ceil((Date.now() + 16_000) / 1000) * 1000;
    const expiry = goLive + 2_000;
    const post = (title: string, extra: Record<string, string> = {}) =>
      article({ title, status: 'published', publishedAt: '2026-01-01', metaDescription: `About ${title}`, ...extra });
    p.write('one/site.yaml', 'name: One\nlang: en\nurl: https://one.example.com\n');
    p.write('one/articles/alpha.md', post('Alpha'));
    p.write('one/articles/beta.md', post('Beta', { publishedAt: '2026-01-02' }));
    p.write('one/articles/gamma.md', post('Gamma', { status: 'draft' }));
    p.write('one/articles/brief.md', post('Brief', { expiresAt: iso(expiry) }));
    p.write('one/articles/soon.md', post('Soon', { publishedAt: iso(goLive) }));
    p.write('two/site.yaml', 'name: Two\nlang: en\nurl: https://two.example.com\n');
    p.write('two/articles/other.md', post('Other'));
    p.commit('content', '2026-01-03T00:00:00Z');
    const e = { ...env(), QUIRE_SECRET: 's'.repeat(40), PORT: '0' };
    const cli = async (...args: string[]) => {
      const r = await runCli(args, e);
      expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const publishCommit = async (message: string, date: string) => {
      p.commit(message, date);
      await cli('publish');
    };
    await cli(
      'webhook',
      'set',
      'one',
      '--url',
      `${receiver().url}/hooks/one`,
      '--secret',
      RECEIVER_SECRET,
      '--extra-events',
    );
    await cli('webhook', 'set', 'two', '--url', `${receiver().url}/hooks/two`, '--secret', RECEIVER_SECRET);
    const keys = Object.fromEntries(
      (JSON.parse(await cli('keys', '--json')) as { site: string; key: string; previewKey: string }[]).map((k) => [
        k.site,
        k,
      ]),
    );
    const one = keys.one!.key;
    const two = keys.two!.key;

    const server = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${server.match[1]}/v1`;
      // Never published yet: the state the server recorded when it loaded its build, and a cursor to follow from.
      const initial = await get(`${api}/changes`, one);
      expect(initial.status).toBe(200);
      expect(initial.headers.get('cache-control')).toBe('no-store');
      expect(initial.headers.get('access-control-allow-origin')).toBe('*');
      const start = ChangeFeedSchema.parse(initial.body);
      expect(start.changes.map((c) => `${c.type}:${c.slug}`).sort()).toEqual([
        'published:alpha',
        'published:beta',
        'published:brief',
      ]);
      expect(start.more).toBe(false);

      await cli('publish'); // first publish: alpha, beta, brief to the webhook; nothing new for the feed
      p.write('one/articles/alpha.md', post('Alpha, revised'));
      await publishCommit('edit alpha', '2026-01-04T00:00:00Z');
      p.write('one/articles/gamma.md', post('Gamma'));
      p.write('one/articles/delta.md', post('Delta'));
      await publishCommit('publish gamma, add delta', '2026-01-05T00:00:00Z');
      p.write('one/articles/beta.md', post('Beta', { publishedAt: '2026-01-02', status: 'draft' }));
      await publishCommit('beta back to draft', '2026-01-06T00:00:00Z');
      p.remove('one/articles/delta.md');
      await publishCommit('delete delta', '2026-01-07T00:00:00Z');
      p.write('one/articles/beta.md', post('Beta again', { publishedAt: '2026-01-02' }));
      await publishCommit('beta published again', '2026-01-08T00:00:00Z');
      // The go-live and the expiry, announced by the server at their instants (or by a publish after them).
      await expect
        .poll(
          () =>
            webhookStory('one').filter((w) => w.slug === 'soon' || (w.slug === 'brief' && w.type === 'withdrawn'))
              .length,
          { timeout: expiry - Date.now() + 15_000, interval: 250 },
        )
        .toBe(2);

      // The same story: per article, the same changes in the same order, with the same article
      // (the state the feed started from, then what changed since).
      const followed = await follow(api, one, start.cursor, 2);
      const changes = [...start.changes, ...followed.changes];
      const cursor = followed.cursor;
      const webhooks = webhookStory('one');
      expect(types(changes)).toEqual(types(webhooks));
      expect(types(changes)).toEqual({
        alpha: ['published', 'updated'],
        beta: ['published', 'withdrawn', 'published'],
        brief: ['published', 'withdrawn'],
        gamma: ['published'],
        delta: ['published', 'deleted'],
        soon: ['published'],
      });
      expect(changes.length).toBe(webhooks.length);
      const hooks = bySlug(webhooks);
      for (const [slug, entries] of Object.entries(bySlug(changes))) {
        entries.forEach((c, i) => {
          const w = hooks[slug]![i]!;
          expect(c.id).toBe(slug);
          if (!('article' in c)) return expect(['withdrawn', 'deleted']).toContain(c.type);
          expect(['published', 'updated']).toContain(c.type);
          expect({
            slug: c.article.slug,
            title: c.article.title,
            metaDescription: c.article.metaDescription ?? '',
            imageUrl: c.article.imageUrl ?? '',
            imageAlt: c.article.imageAlt ?? '',
          }).toEqual({
            slug: w.article.slug,
            title: w.article.title,
            metaDescription: w.article.metaDescription,
            imageUrl: w.article.imageUrl,
            imageAlt: w.article.imageAlt,
          });
        });
      }
      expect(changes.find((c) => c.slug === 'alpha' && c.type === 'updated')).toMatchObject({
        article: { title: 'Alpha, revised' },
      });
      // `at` is each recording's instant: in order, and the go-live's no earlier than its time.
      const ats = changes.map((c) => Date.parse(c.at));
      expect(ats).toEqual([...ats].sort((a, b) => a - b));
      expect(Date.parse(changes.find((c) => c.slug === 'soon')!.at)).toBeGreaterThanOrEqual(goLive - 1000);

      // Caught up: nothing more, the same cursor. The state now is the list as served, item for item.
      const caughtUp = ChangeFeedSchema.parse((await get(`${api}/changes?since=${cursor}`, one)).body);
      expect([caughtUp.changes, caughtUp.cursor, caughtUp.more]).toEqual([[], cursor, false]);
      const list = ArticleListSchema.parse((await get(`${api}/articles`, one)).body);
      const now = ChangeFeedSchema.parse((await get(`${api}/changes`, one)).body);
      expect(Object.fromEntries(now.changes.map((c) => [c.slug, c.type === 'published' ? c.article : null]))).toEqual(
        Object.fromEntries(list.articles.map((a) => [a.slug, a])),
      );
      expect((await get(`${api}/changes?since=${now.cursor}`, one)).body).toMatchObject({ changes: [], more: false });

      // Another site's key reads its own story only, and cannot use this site's cursor.
      const twoFeed = ChangeFeedSchema.parse((await get(`${api}/changes`, two)).body);
      expect(twoFeed.changes.map((c) => c.slug)).toEqual(['other']);
      const foreign = await get(`${api}/changes?since=${cursor}`, two);
      expect([foreign.status, codeOf(foreign)]).toEqual([400, 'CURSOR_INVALID']);

      // Malformed cursors and limits are 400 with their codes; keys as everywhere; a preview key is refused.
      for (const bad of ['nonsense', cursor.slice(0, -2), `${cursor}x`, 'Yzgu', '%00', 'a'.repeat(300)]) {
        const a = await get(`${api}/changes?since=${encodeURIComponent(bad)}`, one);
        expect([a.status, codeOf(a)], bad).toEqual([400, 'CURSOR_INVALID']);
      }
      for (const limit of ['0', '1001', 'x', '1.5'])
        expect(codeOf(await get(`${api}/changes?since=${cursor}&limit=${limit}`, one))).toBe('QUERY_INVALID');
      expect(codeOf(await get(`${api}/changes?since=${cursor}&since=${cursor}`, one))).toBe('QUERY_INVALID');
      expect([(await get(`${api}/changes`, null)).status, codeOf(await get(`${api}/changes`, null))]).toEqual([
        401,
        'API_KEY_MISSING',
      ]);
      expect(codeOf(await get(`${api}/changes`, `${one.slice(0, -4)}AAAA`))).toBe('API_KEY_INVALID');
      const preview = await get(`${api}/changes`, keys.one!.previewKey);
      expect([preview.status, codeOf(preview)]).toEqual([403, 'CHANGES_SITE_KEY_ONLY']);
      expect((await get(`${api}/changes?key=${one}`, null)).status).toBe(200);

      // A cursor of another state store (or one started over) is expired, not read as this one's.
      const otherStore = await get(
        `${api}/changes?since=${encodeCursor({ storeId: '0123456789abcdef', siteId: 'one', position: 1 })}`,
        one,
      );
      expect([otherStore.status, codeOf(otherStore)]).toEqual([410, 'CURSOR_EXPIRED']);

      // Retention: with the history pruned past the first cursor, it expires and says to resync.
      const store = openSqliteStateStore(p.stateDir, e.QUIRE_SECRET, 2);
      try {
        const kept = now.changes.find((c) => c.slug === 'alpha')!;
        store.published.record(
          'one',
          null,
          [
            {
              slug: 'alpha',
              state: 'published',
              payloadHash: 'x',
              item: JSON.stringify(kept.type === 'published' ? kept.article : null),
            },
          ],
          Date.now(),
        );
      } finally {
        store.close();
      }
      const expired = await get(`${api}/changes?since=${start.cursor}`, one);
      expect([expired.status, codeOf(expired)]).toEqual([410, 'CURSOR_EXPIRED']);
      expect((expired.body.error as { message: string }).message).toMatch(/resync/);
      expect(expired.headers.get('cache-control')).toBe('no-store');
      const resynced = ChangeFeedSchema.parse((await get(`${api}/changes`, one)).body);
      expect((await get(`${api}/changes?since=${resynced.cursor}`, one)).body).toMatchObject({
        changes: [],
        more: false,
      });
    } finally {
      await server.stop();
    }
  });
});

describe('a server with no change history', () => {
  let fixture: TempProject;
  let api: Awaited<ReturnType<typeof startTestApi>>;
  beforeAll(async () => {
    fixture = await buildTwoSites();
    api = await startTestApi(fixture);
  });
  afterAll(async () => {
    await api?.close();
    fixture?.cleanup();
  });

  it('answers 503 CHANGES_UNAVAILABLE (never an empty feed that would read as "nothing changed")', async () => {
    const a = await get(`${api.url}/v1/changes`, api.keyring.keyFor('alpha'));
    expect([a.status, codeOf(a)]).toEqual([503, 'CHANGES_UNAVAILABLE']);
    expect((await get(`${api.url}/v1/changes`, null)).status).toBe(401);
  });
});
