// The Articles tab over a real socket: an article that asks to be published but has errors is
// "broken" (not a draft), counted as such, with each problem's place, message, code and the
// CLI's hint; a file whose front matter cannot be read still has its row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import type { ContentFacts } from '../../src/content/load-content.ts';
import { signIn, startAdminServer, type AdminClient, type AdminServer } from '../helpers/admin-server.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let server: AdminServer;
let admin: AdminClient;
let lastBuild: ContentFacts;
let settings: Parameters<typeof buildExport>[0];

/** What the server keeps after each build, as `start` and `dev` do. */
async function rebuild(): Promise<boolean> {
  const result = await buildExport(settings);
  lastBuild = { sites: result.loaded, issues: result.issues };
  return result.ok;
}

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one', 'name: Field Notes\nlang: en\nurl: https://one.example.com\n');
  p.write('one/authors/ann.yaml', 'name: Ann\n');
  p.write(
    'one/articles/live.md',
    article({ title: 'Live and well', status: 'published', author: 'ann', publishedAt: '2026-05-01' }),
  );
  p.write('one/articles/later.md', article({ title: 'A draft for later', status: 'draft' }));
  p.write('one/articles/was-live.md', article({ title: 'Was live', status: 'published', publishedAt: '2026-04-01' }));
  settings = { contentDir: p.contentDir, distDir: p.distDir, stateDir: p.stateDir, publicUrl: 'http://127.0.0.1' };
  expect((await buildExport(settings)).ok).toBe(true);
  // Then an edit breaks a live article, a new published one has an unknown author, and one file's
  // front matter is not YAML: the next build fails and the last good dist/ stays.
  p.write(
    'one/articles/was-live.md',
    article({ title: 'Was live', status: 'published', author: 'bob', publishedAt: '2026-04-01' }),
  );
  p.write(
    'one/articles/new.md',
    article({ title: 'Brand new', status: 'published', author: 'carol', publishedAt: '2026-05-03' }),
  );
  p.write('one/articles/mangled.md', '---\ntitle: [unclosed\n---\n\nText.\n');
  expect(await rebuild()).toBe(false);
  server = await startAdminServer(p, { lastBuild: () => lastBuild });
  admin = await signIn(server.url);
}, 60_000);

afterAll(async () => {
  await server?.close();
  p?.cleanup();
});

const rowOf = (html: string, file: string) => {
  const rows = html.split('<tr').filter((r) => r.includes(`${file}<`));
  expect(rows, file).toHaveLength(1);
  return rows[0]!;
};

describe('the Articles tab', () => {
  it('shows a published article with errors as broken, with the problem and its hint', async () => {
    const html = await (await admin.get('/admin/sites/one/articles')).text();
    expect(html).toMatch(/1 published, 1 draft, 3 broken/);

    const fresh = rowOf(html, 'content/one/articles/new.md');
    expect(fresh).toContain('<span class="badge err">broken</span>');
    expect(fresh).toContain('content/one/articles/new.md:4:9');
    expect(fresh).toContain('unknown author &quot;carol&quot;');
    expect(fresh).toContain('[CONTENT_AUTHOR_UNKNOWN]');
    expect(fresh).toMatch(/hint: add authors\/carol.yaml or use one of: ann/);
    expect(fresh).toContain('not in the API');

    // An earlier version is still served: say so, and keep its JSON link.
    const edited = rowOf(html, 'content/one/articles/was-live.md');
    expect(edited).toContain('<span class="badge err">broken</span>');
    expect(edited).toContain('/admin/sites/one/articles/was-live.json');
    expect(edited).toContain('the last good build');

    const mangled = rowOf(html, 'content/one/articles/mangled.md');
    expect(mangled).toContain('<span class="badge err">broken</span>');
    expect(mangled).toContain('CONTENT_YAML_INVALID');

    expect(rowOf(html, 'content/one/articles/live.md')).toContain('<span class="badge ok">published</span>');
    expect(rowOf(html, 'content/one/articles/later.md')).toContain('<span class="badge">draft</span>');
    // Each problem is listed once.
    expect(html.split('unknown author &quot;carol&quot;')).toHaveLength(2);
  });

  it('shows problems found across files with their hints too', async () => {
    p.write('one/articles/zz-dup.md', article({ title: 'Same slug', status: 'draft', slug: 'live' }));
    await rebuild();
    const html = await (await admin.get('/admin/sites/one/articles')).text();
    const dup = rowOf(html, 'content/one/articles/zz-dup.md');
    expect(dup).toMatch(/CONTENT_SLUG_DUPLICATE[\s\S]*hint: give one of the two articles its own `slug:`/);
    // Which other file holds the slug, as the CLI says it.
    expect(dup).toMatch(/\(the other: <code class="place">content\/one\/articles\/live.md:\d+:\d+<\/code>\)/);
    p.remove('one/articles/zz-dup.md');
    await rebuild();
  });

  it('lists problems outside articles (site.yaml, authors) in their own card', async () => {
    p.write('one/authors/zed.yaml', 'name: [unclosed\n');
    await rebuild();
    const html = await (await admin.get('/admin/sites/one/articles')).text();
    const card = html.slice(html.indexOf('id="problems-h"'), html.indexOf('id="articles-h"'));
    expect(card).toMatch(/content\/one\/authors\/zed.yaml:\d+:\d+/);
    p.remove('one/authors/zed.yaml');
    await rebuild();
  });
});
