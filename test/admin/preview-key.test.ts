// The Publishing tab's preview key over a real socket: shown masked with its own reveal and copy,
// rotated on its own (the API key stays), and a rotation is what the API then checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { verifyPreviewToken } from '../../src/receiver/verify-webhook.ts';
import { signIn, startAdminServer, type AdminClient, type AdminServer } from '../helpers/admin-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let server: AdminServer;
let admin: AdminClient;

beforeAll(async () => {
  p = createTempProject();
  writeSite(
    p,
    'one',
    'name: Field Notes\nlang: en\nurl: https://one.example.com\npreviewUrl: https://one.example.com/api/preview?slug={slug}&token={token}\n',
  );
  p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
  p.write('one/articles/idea.md', article({ title: 'An idea' }));
  expect(
    (
      await buildExport({
        contentDir: p.contentDir,
        distDir: p.distDir,
        stateDir: p.stateDir,
        publicUrl: 'http://127.0.0.1',
      })
    ).ok,
  ).toBe(true);
  server = await startAdminServer(p);
  admin = await signIn(server.url);
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

const PUBLISHING = '/admin/sites/one/publishing';
const keysOn = (html: string) => ({
  api: /id="api-key" data-value="(pk_[^"]+)"/.exec(html)?.[1],
  preview: /id="preview-key" data-value="(pv_[^"]+)"/.exec(html)?.[1],
});
const draft = (key: string) => fetch(`${server.url}/v1/articles/idea`, { headers: { authorization: `Bearer ${key}` } });

describe('the preview key in the Publishing tab', () => {
  it("is shown masked beside the API key, with its own reveal and copy, and the site's preview route", async () => {
    const html = await (await admin.get(PUBLISHING)).text();
    const { api, preview } = keysOn(html);
    expect(api).toMatch(/^pk_one\./);
    expect(preview).toMatch(/^pv_one\./);
    // One action, one word: each key's reveal and copy named alike, after the key they act on.
    const buttons = [
      ...html.matchAll(/<button type="button" data-(reveal|copy)="(api|preview)-key"[^>]*>\s*([^<]*?)\s*<\/button>/g),
    ].map((m) => m[3]);
    expect(buttons).toEqual(['Reveal key', 'Copy key', 'Reveal preview key', 'Copy preview key']);
    expect(html).toMatch(/<code id="preview-key"[^>]*>\s*pv_one\.•+/);
    expect(html).toContain('https://one.example.com/api/preview?slug={slug}&amp;token={token}');
    expect((await draft(preview!)).status).toBe(200);
    expect((await draft(api!)).status).toBe(404);
  });

  it("the Articles tab links a draft to the site's preview route with a token the kit accepts", async () => {
    const html = await (await admin.get('/admin/sites/one/articles')).text();
    const href = /<a href="([^"]+)" target="_blank" rel="noopener noreferrer">Preview on the site<\/a>/
      .exec(html)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(href).toBeDefined();
    const link = new URL(href!);
    expect(`${link.origin}${link.pathname}`).toBe('https://one.example.com/api/preview');
    expect(link.searchParams.get('slug')).toBe('idea');
    const { preview } = keysOn(await (await admin.get(PUBLISHING)).text());
    expect(verifyPreviewToken(link.searchParams.get('token')!, preview!, { slug: 'idea', site: 'one' })).toMatchObject({
      ok: true,
    });
    expect(html.match(/Preview on the site/g)).toHaveLength(1); // the published article has none
  });

  it('rotates on its own: the old preview key stops, the API key stays', async () => {
    const before = keysOn(await (await admin.get(PUBLISHING)).text());
    const refused = await admin.post('/admin/sites/one/rotate-preview-key', {});
    expect(refused.status).toBe(303);
    expect(keysOn(await (await admin.get(PUBLISHING)).text())).toEqual(before);
    const rotated = await admin.post('/admin/sites/one/rotate-preview-key', { confirm: 'yes' });
    expect([rotated.status, rotated.headers.get('location')]).toEqual([303, PUBLISHING]);
    const page = await (await admin.get(PUBLISHING)).text();
    expect(page).toContain('New preview key issued');
    const after = keysOn(page);
    expect(after.api).toBe(before.api);
    expect(after.preview).not.toBe(before.preview);
    expect((await draft(before.preview!)).status).toBe(401);
    expect((await draft(after.preview!)).status).toBe(200);
  });
});
