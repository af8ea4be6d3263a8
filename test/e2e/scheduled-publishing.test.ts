// Scheduled publishing, expiry and draft preview on a running server: real `quire start`
// processes, a real HTTPS receiver, the real clock (articles a few seconds ahead, no sleeping
// for minutes). A go-live is served and announced at its instant without a rebuild, exactly
// once with two servers and a `publish` run on the same state; an expiry withdraws; drafts and
// scheduled articles are reachable only with the preview key, never cached.
import { describe, expect, it } from 'vitest';
import { RECEIVER_SECRET, useReceiverProject } from '../helpers/receiver-project.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject } from '../helpers/temp-content.ts';

const { receiver, project, env } = useReceiverProject();
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const eventsFor = (slug: string) =>
  receiver()
    .requests.map((r) => ({
      event: r.headers['x-quire-event'],
      slug: (JSON.parse(r.rawBody.toString()) as { article: { slug: string } }).article.slug,
    }))
    .filter((e) => e.slug === slug);

async function get(url: string, key: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers } });
  return {
    status: res.status,
    headers: res.headers,
    body: res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null,
  };
}
const slugsOf = (body: Record<string, unknown> | null) => (body!.articles as { slug: string }[]).map((a) => a.slug);
const maxAge = (headers: Headers) => Number(/max-age=(\d+)/.exec(headers.get('cache-control') ?? '')?.[1]);

describe('scheduled publishing on a running server', { timeout: 90_000 }, () => {
  it('serves and announces a go-live at its instant, once; withdraws at expiry; previews only with the preview key', async () => {
    const p = (project.current = createTempProject({ git: true }));
    const start = Date.now();
    const goLive = Math.ceil((start + 12_000) / 1000) * 1000;
    const expiry = goLive + 4_000;
    p.write('one/site.yaml', 'name: One\nlang: en\nurl: https://one.example.com\n');
    p.write('one/articles/now.md', article({ title: 'Now', status: 'published', publishedAt: '2026-01-01' }));
    p.write('one/articles/soon.md', article({ title: 'Soon', status: 'published', publishedAt: iso(goLive) }));
    p.write(
      'one/articles/brief.md',
      article({ title: 'Brief', status: 'published', publishedAt: '2026-01-02', expiresAt: iso(expiry) }),
    );
    p.write('one/articles/wip.md', article({ title: 'Work in progress', status: 'draft' }));
    p.commit('content', '2026-01-03T00:00:00Z');
    const e = { ...env(), QUIRE_SECRET: 's'.repeat(40), PORT: '0' };
    expect(
      (
        await runCli(
          ['webhook', 'set', 'one', '--url', `${receiver().url}/hooks`, '--secret', RECEIVER_SECRET, '--extra-events'],
          e,
        )
      ).code,
    ).toBe(0);
    const firstPublish = await runCli(['publish'], e);
    expect(firstPublish.code, firstPublish.stderr).toBe(0);
    expect(eventsFor('soon')).toEqual([]); // scheduled: not announced before its time
    expect(eventsFor('now')).toEqual([{ event: 'published', slug: 'now' }]);
    const keys = JSON.parse((await runCli(['keys', '--json'], e)).stdout) as { key: string; previewKey: string }[];
    const { key, previewKey } = keys[0]!;

    const one = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    const two = await startCli(['start'], e, /Content API on (\S+)\/v1/);
    try {
      const api = `${one.match[1]}/v1`;
      // Before the go-live.
      const before = await get(`${api}/articles`, key);
      expect(slugsOf(before.body)).toEqual(['brief', 'now']);
      expect(before.body!.total).toBe(2);
      expect(maxAge(before.headers)).toBeLessThanOrEqual(Math.ceil((goLive - Date.now()) / 1000));
      expect((await get(`${api}/articles/soon`, key)).status).toBe(404);
      expect((await get(`${api}/articles/wip`, key)).status).toBe(404);
      const brief = await get(`${api}/articles/brief`, key);
      expect(maxAge(brief.headers)).toBeLessThanOrEqual(Math.ceil((expiry - Date.now()) / 1000));
      expect(brief.body).not.toHaveProperty('status');

      // The preview key sees everything there is, marked, and nothing of it is cacheable.
      const preview = await get(`${api}/articles`, previewKey);
      expect(preview.status).toBe(200);
      expect(preview.headers.get('cache-control')).toBe('private, no-store');
      const items = preview.body!.articles as { slug: string; status: string; expiresAt?: string }[];
      expect(Object.fromEntries(items.map((i) => [i.slug, i.status]))).toEqual({
        soon: 'scheduled',
        brief: 'published',
        now: 'published',
        wip: 'draft',
      });
      expect(items.find((i) => i.slug === 'brief')!.expiresAt).toBe(iso(expiry));
      const draft = await get(`${api}/articles/wip`, previewKey);
      expect(draft.status).toBe(200);
      expect(draft.body).toMatchObject({ slug: 'wip', title: 'Work in progress', status: 'draft' });
      expect(draft.headers.get('cache-control')).toBe('private, no-store');

      // At the go-live: served by both servers with no rebuild, the list's ETag changed.
      await expect
        .poll(async () => slugsOf((await get(`${api}/articles`, key)).body), {
          timeout: goLive - Date.now() + 5_000,
          interval: 200,
        })
        .toEqual(['soon', 'brief', 'now']);
      expect(Date.now()).toBeGreaterThanOrEqual(goLive);
      const after = await get(`${api}/articles`, key);
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      expect((await get(`${two.match[1]}/v1/articles/soon`, key)).status).toBe(200);
      await expect.poll(() => eventsFor('soon'), { timeout: 10_000 }).toEqual([{ event: 'published', slug: 'soon' }]);

      // A publish run after the go-live sends nothing more for it.
      expect((await runCli(['publish'], e)).code).toBe(0);

      // At the expiry: withdrawn (404, out of the list), and `unpublished` to this opted-in webhook.
      await expect
        .poll(async () => (await get(`${api}/articles/brief`, key)).status, {
          timeout: expiry - Date.now() + 5_000,
          interval: 200,
        })
        .toBe(404);
      expect(slugsOf((await get(`${api}/articles`, key)).body)).toEqual(['soon', 'now']);
      await expect
        .poll(() => eventsFor('brief').map((x) => x.event), { timeout: 10_000 })
        .toEqual(['published', 'unpublished']);
      await new Promise((r) => setTimeout(r, 1500)); // room for a duplicate to show up
      expect(eventsFor('soon')).toEqual([{ event: 'published', slug: 'soon' }]);
      expect(eventsFor('brief').map((x) => x.event)).toEqual(['published', 'unpublished']);
    } finally {
      await one.stop();
      await two.stop();
    }
  });

  it('without a server, `publish` sends a go-live with the first run after it, once', async () => {
    const p = (project.current = createTempProject({ git: true }));
    const goLive = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
    p.write('one/site.yaml', 'name: One\nlang: en\nurl: https://one.example.com\n');
    p.write('one/articles/now.md', article({ title: 'Now', status: 'published', publishedAt: '2026-01-01' }));
    p.write('one/articles/soon.md', article({ title: 'Soon', status: 'published', publishedAt: iso(goLive) }));
    p.commit('content', '2026-01-03T00:00:00Z');
    const e = { ...env(), QUIRE_SECRET: 's'.repeat(40) };
    expect(
      (await runCli(['webhook', 'set', 'one', '--url', `${receiver().url}/hooks`, '--secret', RECEIVER_SECRET], e))
        .code,
    ).toBe(0);
    expect((await runCli(['publish'], e)).code).toBe(0);
    expect(eventsFor('soon')).toEqual([]);
    await new Promise((r) => setTimeout(r, goLive - Date.now() + 100));
    const after = await runCli(['publish'], e);
    expect(after.code, after.stderr).toBe(0);
    expect(eventsFor('soon')).toEqual([{ event: 'published', slug: 'soon' }]);
    expect((await runCli(['publish'], e)).code).toBe(0);
    expect(eventsFor('soon')).toEqual([{ event: 'published', slug: 'soon' }]);
    expect(eventsFor('now')).toEqual([{ event: 'published', slug: 'now' }]);
  });
});
