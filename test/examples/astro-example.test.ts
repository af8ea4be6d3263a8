// examples/astro as a site owner runs it: installed from its own lock file (once per lock, see
// example-install.ts), a real `astro build` whose articles come from a real Quire server through
// `quire/astro`, over a real git content repository. The built pages carry each article's `html`
// unmodified, a self-canonical and the byline; served on loopback, `quire verify` (the code path
// of the MCP tool verify_integration) passes every check.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEnv, installExample } from '../helpers/example-install.ts';
import { runCli, runProgram, startCli } from '../helpers/run-cli.ts';
import { startStaticSite } from '../helpers/static-site.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/astro');
const ASTRO = path.join(EXAMPLE, 'node_modules', 'astro', 'bin', 'astro.mjs');
const DIST = path.join(EXAMPLE, 'dist');
const SLUGS = ['with-linked-author', 'with-author', 'without-author'];

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let site: Awaited<ReturnType<typeof startStaticSite>>;
let env: Record<string, string>;
let api: string;
let key: string;

beforeAll(async () => {
  const installSec = await installExample(EXAMPLE);
  if (installSec) process.stderr.write(`examples/astro: npm ci took ${installSec.toFixed(1)} s\n`);
  p = createTempProject({ git: true });
  writeSite(p, 'one', 'name: One\nlang: en\nurl: https://one.example.com\narticlePath: /blog/{slug}/\n');
  p.write('one/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  p.write('one/authors/bo.yaml', 'name: Bo Plain\n');
  p.write(
    'one/articles/with-linked-author.md',
    article(
      {
        title: 'Linked',
        status: 'published',
        author: 'ann',
        publishedAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-05T08:30:00Z',
      },
      'Text with *emphasis*, a [link](https://example.org/a?b=1&c=2) and "quotes".\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
    ),
  );
  p.write(
    'one/articles/with-author.md',
    article(
      { title: 'Plain', status: 'published', author: 'bo', publishedAt: '2026-01-02T00:00:00Z' },
      'Second <b>text</b>.\n',
    ),
  );
  p.write(
    'one/articles/without-author.md',
    article(
      { title: 'Anonymous', status: 'published', publishedAt: '2026-01-03T00:00:00Z' },
      '```js\nconst a = 1 < 2;\n```\n',
    ),
  );
  p.commit('three articles', '2026-01-06T10:00:00Z');
  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /key: (pk_one\.\S+)[\s\S]*Publishing app: (\S+)\/admin/);
  [, key, api] = quire.match as unknown as [string, string, string];
  // The static server first: the build must know the site's address for canonicals and the sitemap.
  fs.rmSync(DIST, { recursive: true, force: true });
  fs.mkdirSync(DIST, { recursive: true });
  site = await startStaticSite(DIST);

  const started = Date.now();
  const build = await runProgram(
    process.execPath,
    [ASTRO, 'build'],
    exampleEnv({
      NODE_ENV: 'production',
      ASTRO_TELEMETRY_DISABLED: '1',
      QUIRE_API_URL: api,
      QUIRE_KEY: key,
      SITE_URL: site.url,
    }),
    EXAMPLE,
  );
  expect(build.code, `${build.stdout}\n${build.stderr}`).toBe(0);
  process.stderr.write(`examples/astro: astro build took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  expect(build.stdout).toContain('3 articles from Quire');
}, 300_000);

afterAll(async () => {
  await site?.close();
  await quire?.stop();
  p?.cleanup();
});

describe('examples/astro', { timeout: 60_000 }, () => {
  it('builds a page per article with its html unmodified, a self-canonical and the byline', async () => {
    for (const slug of SLUGS) {
      const served = (await (
        await fetch(`${api}/v1/articles/${slug}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { html: string };
      const built = fs.readFileSync(path.join(DIST, 'blog', slug, 'index.html'), 'utf8');
      expect(built).toContain(served.html);
      expect(built).toContain(`<link rel="canonical" href="${site.url}/blog/${slug}/">`);
    }
    const page = (slug: string) => fs.readFileSync(path.join(DIST, 'blog', slug, 'index.html'), 'utf8');
    expect(page('with-linked-author')).toMatch(
      /class="byline">By <a href="https:\/\/ann\.example\.org\/">Ann Example<\/a>/,
    );
    expect(page('with-author')).toMatch(/class="byline">By Bo Plain</);
    expect(page('without-author')).not.toContain('byline');
    const sitemap = fs.readFileSync(path.join(DIST, 'sitemap.xml'), 'utf8');
    expect(sitemap).toContain(
      `<url><loc>${site.url}/blog/with-linked-author/</loc><lastmod>2026-01-05T08:30:00Z</lastmod></url>`,
    );
  });

  it('verify_integration passes every check against the built site served on loopback', async () => {
    const verify = await runCli(['verify', 'one', '--url', site.url, '--json'], env);
    const report = JSON.parse(verify.stdout) as {
      ok: boolean;
      articles: { url: string; checks: { id: string; status: string; message: string }[] }[];
    };
    expect(report.articles.map((a) => a.url).sort()).toEqual(SLUGS.map((s) => `${site.url}/blog/${s}/`).sort());
    const notPassed = report.articles.flatMap((a) =>
      a.checks.filter((c) => c.status !== 'pass').map((c) => `${a.url} ${c.id} ${c.status}: ${c.message}`),
    );
    expect(notPassed).toEqual([
      `${site.url}/blog/without-author/ byline skipped: the article has no author, so no byline is expected`,
    ]);
    expect(report.articles.flatMap((a) => a.checks.map((c) => c.id)).sort()).toEqual(
      SLUGS.flatMap(() => ['byline', 'canonical', 'html', 'sitemap']).sort(),
    );
    expect(report.ok).toBe(true);
    expect(verify.code).toBe(0);
  });

  it("quireLoader fits Astro's own types: the example type-checks with the types the build generated", async () => {
    const tsc = await runProgram(
      process.execPath,
      [path.resolve(EXAMPLE, '../../node_modules/typescript/bin/tsc'), '-p', EXAMPLE, '--noEmit'],
      {},
      EXAMPLE,
    );
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  });
});
