import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const envFor = (proj: TempProject, extra: Record<string, string> = {}) => ({
  QUIRE_CONTENT_DIR: proj.contentDir,
  QUIRE_DIST_DIR: proj.distDir,
  QUIRE_STATE_DIR: proj.stateDir,
  ...extra,
});

function twoSites(): TempProject {
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  p.write(
    'one/articles/a.md',
    article({ title: 'A', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }, 'Text of A.\n'),
  );
  p.write(
    'two/articles/b.md',
    article({ title: 'B', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-01' }),
  );
  return p;
}

describe('quire build', () => {
  it('prints every problem as path:line:col  message  [CODE] and exits non-zero', async () => {
    twoSites();
    p.write('one/articles/bad.md', '---\ntitle: Bad\nkind: podcast\nauthor: nobody\n---\n');
    p.write('two/articles/worse.md', '---\nstatus: published\n---\n');
    const r = await runCli(['build'], envFor(p), p.root);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines).toContain('content/one/articles/bad.md:3:7  unknown kind "podcast"  [CONTENT_KIND_UNKNOWN]');
    expect(lines).toContain('content/one/articles/bad.md:4:9  unknown author "nobody"  [CONTENT_AUTHOR_UNKNOWN]');
    expect(lines).toContain(
      'content/two/articles/worse.md:1:1  missing required field `title`  [CONTENT_FIELD_REQUIRED]',
    );
    expect(r.stderr).toMatch(/Build failed: 3 errors/);
    expect(fs.existsSync(p.distDir)).toBe(false);
  });

  it('builds and reports what it did', async () => {
    twoSites();
    const r = await runCli(['build'], envFor(p), p.root);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Built 2 articles \(2 live, 0 drafts\) in 2 sites: 2 rendered, 0 from cache/);
  });

  it('counts scheduled and expired articles apart from live ones: "published" alone would count what no reader sees yet', async () => {
    twoSites();
    p.write(
      'one/articles/later.md',
      article({ title: 'Later', status: 'published', publishedAt: '2099-01-01T00:00:00Z' }),
    );
    p.write(
      'one/articles/gone.md',
      article({
        title: 'Gone',
        status: 'published',
        publishedAt: '2026-01-01T00:00:00Z',
        expiresAt: '2026-01-02T00:00:00Z',
      }),
    );
    p.write('two/articles/draft.md', article({ title: 'Draft' }));
    const r = await runCli(['build'], envFor(p), p.root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Built 5 articles \(2 live, 1 scheduled, 1 expired, 1 draft\) in 2 sites: /m);
  });

  it('refuses a bad setting before doing anything', async () => {
    twoSites();
    const r = await runCli(['build'], envFor(p, { PORT: 'eighty', QUIRE_SECRET: 'short' }), p.root);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/PORT: must be a whole number/);
    expect(r.stderr).toMatch(/QUIRE_SECRET: must be at least 32 characters/);
  });
});

describe('quire keys', () => {
  it('prints keys as JSON, one site or all, stable across runs, with a secret generated once (0600)', async () => {
    twoSites();
    const all = await runCli(['keys', '--json'], envFor(p));
    expect(all.code).toBe(0);
    const keys = JSON.parse(all.stdout) as { site: string; key: string }[];
    expect(keys.map((k) => k.site)).toEqual(['one', 'two']);
    for (const k of keys) expect(k.key).toMatch(new RegExp(`^pk_${k.site}\\.[A-Za-z0-9_-]{43}$`));
    const secretFile = path.join(p.stateDir, 'secret');
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    const one = await runCli(['keys', '--site', 'two', '--json'], envFor(p));
    expect(JSON.parse(one.stdout)).toEqual([keys[1]]);
    const unknown = await runCli(['keys', '--site', 'three'], envFor(p));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no site "three"/);
  });

  it("rotates one site's key and leaves the others alone", async () => {
    twoSites();
    const before = JSON.parse((await runCli(['keys', '--json'], envFor(p))).stdout);
    const rotated = await runCli(['keys', 'rotate', 'one'], envFor(p));
    expect(rotated.code).toBe(0);
    const after = JSON.parse((await runCli(['keys', '--json'], envFor(p))).stdout);
    expect(after[0].key).not.toBe(before[0].key);
    expect(rotated.stdout).toContain(after[0].key);
    expect(after[1].key).toBe(before[1].key);
  });

  it('refuses to rotate a site that does not exist, and changes no key', async () => {
    twoSites();
    const before = JSON.parse((await runCli(['keys', '--json'], envFor(p))).stdout);
    const keysFile = path.join(p.stateDir, 'keys.json');
    const typo = await runCli(['keys', 'rotate', 'onee'], envFor(p));
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(/no site "onee" in .* \(sites: one, two\); no key was rotated/);
    expect(fs.existsSync(keysFile)).toBe(false);
    expect(JSON.parse((await runCli(['keys', '--json'], envFor(p))).stdout)).toEqual(before);
  });

  it('uses QUIRE_SECRET when set', async () => {
    twoSites();
    const env = envFor(p, { QUIRE_SECRET: 'x'.repeat(40) });
    const a = JSON.parse((await runCli(['keys', '--json'], env)).stdout);
    expect(fs.existsSync(path.join(p.stateDir, 'secret'))).toBe(false);
    const b = JSON.parse((await runCli(['keys', '--json'], { ...env, QUIRE_SECRET: 'y'.repeat(40) })).stdout);
    expect(a[0].key).not.toBe(b[0].key);
  });
});

describe('quire start and dev', () => {
  it("start builds, serves and prints each site's key and a working curl", async () => {
    twoSites();
    const server = await startCli(['start'], envFor(p, { PORT: '0' }), /curl -H "Authorization: Bearer (\S+)" (\S+)\n/);
    try {
      const [, key, url] = server.match;
      expect(server.output()).toMatch(/one .*\n.*key: pk_one\./);
      const res = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(JSON.parse(await res.text()).total).toBe(1);
    } finally {
      await server.stop();
    }
  });

  it('start serves the bundled example content: both sites, drafts hidden, sanitizer demo inert', async () => {
    p = createTempProject(); // only for its dist and state dirs: the content is the repository's own
    const server = await startCli(
      ['start'],
      { QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir, PORT: '0' },
      /Content API on (\S+)\/v1 [\s\S]*Try:\n\s*curl .*\n/,
    );
    try {
      const keys = Object.fromEntries(
        [...server.output().matchAll(/^ +(\S+) .*\n +key: (pk_\S+)/gm)].map((m) => [m[1], m[2]]),
      );
      expect(Object.keys(keys).sort()).toEqual(['carnet', 'field-notes']);
      const base = server.match[1]!;
      const get = async (site: string, route: string) => {
        const res = await fetch(`${base}${route}`, { headers: { authorization: `Bearer ${keys[site]}` } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const fieldNotes = await get('field-notes', '/v1/articles');
      expect(fieldNotes.body.site).toEqual({ name: 'Field Notes', lang: 'en' });
      const slugs = (fieldNotes.body.articles as { slug: string }[]).map((a) => a.slug);
      expect(slugs).toContain('walking-the-ridge');
      expect(slugs).not.toContain('winter-kit-list');
      expect((await get('field-notes', '/v1/articles/winter-kit-list')).status).toBe(404);
      const demo = await get('field-notes', '/v1/articles/what-the-sanitizer-keeps');
      expect(demo.body.html).toContain('<kbd>Ctrl</kbd>');
      expect(demo.body.html).not.toMatch(/<script|\son\w+=|href="javascript/i);
      const carnet = await get('carnet', '/v1/articles/pain-au-levain');
      expect(carnet.body.lang).toBe('fr');
      expect(carnet.body.related).toEqual([
        { slug: 'le-marche-du-samedi', title: 'Le marché du samedi change de place' },
      ]);
      expect((await get('carnet', '/v1/articles/walking-the-ridge')).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('dev rebuilds on change, and a broken file keeps the last good build up', async () => {
    twoSites();
    const server = await startCli(['dev'], envFor(p, { PORT: '0' }), /Watching .*\n/);
    try {
      const [, key, url] = server.output().match(/curl -H "Authorization: Bearer (\S+)" (\S+)\n/)!;
      const titles = async () =>
        (
          JSON.parse(await (await fetch(url!, { headers: { authorization: `Bearer ${key}` } })).text()) as {
            articles: { title: string }[];
          }
        ).articles.map((a) => a.title);
      const waitFor = async (check: () => Promise<boolean>) => {
        for (let i = 0; i < 200; i++) {
          if (await check()) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`timed out:\n${server.output()}`);
      };
      p.write(
        'one/articles/a.md',
        article({ title: 'A edited', status: 'published', publishedAt: '2026-01-01', updatedAt: '2026-01-02' }),
      );
      await waitFor(async () => (await titles()).includes('A edited'));
      p.write('one/articles/a.md', '---\ntitle: [broken\n---\n');
      await waitFor(async () => /content\/one\/articles\/a\.md:2:\d+ .*\[CONTENT_YAML_INVALID\]/.test(server.output()));
      expect(await titles()).toEqual(['A edited']);
    } finally {
      await server.stop();
    }
  });
});
