// Every page of the Publishing app names its icon, served by the app itself: a browser that finds
// no icon asks for /favicon.ico, which is no admin route (the Content API answers it 404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { signIn, startAdminServer, type AdminServer } from '../helpers/admin-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let server: AdminServer;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/articles/first.md', article({ title: 'First', status: 'published', publishedAt: '2026-05-01' }));
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
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

const iconOf = (html: string) =>
  /<link rel="icon" type="image\/svg\+xml" href="(\/admin\/assets\/icon\.[0-9a-f]{12}\.svg)"\/?>/.exec(html)?.[1];

describe("the Publishing app's icon", () => {
  it('is named by every page, signed in or not, found or not, and served as an image the CSP allows', async () => {
    const admin = await signIn(server.url);
    const pages = [
      await fetch(`${server.url}/admin/sign-in`),
      await admin.get('/admin'),
      await admin.get('/admin/sites/one/publishing'),
      await admin.get('/admin/no-such-page'),
    ];
    const icons = await Promise.all(pages.map(async (r) => iconOf(await r.text())));
    expect(pages.map((r) => r.status)).toEqual([200, 200, 200, 404]);
    expect(new Set(icons).size).toBe(1);
    const icon = icons[0];
    expect(icon).toBeDefined();
    // Same origin, so the pages' `img-src 'self'` allows it.
    expect(pages[0]!.headers.get('content-security-policy')).toMatch(/img-src 'self'/);
    const res = await fetch(`${server.url}${icon}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
