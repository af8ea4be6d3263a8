// examples/nextjs as a site owner runs it: installed from its own lock file (once per lock, see
// example-install.ts), a real `next build` against a real Quire server over a real git content
// repository, then `next start` on loopback behind an HTTPS front that Quire delivers to. An edit
// published through Quire's own publish path shows on the next request, without a rebuild; a
// forged webhook is refused (401) and changes nothing; a webhook expires exactly its article and
// the list, not other articles; a new article appears and a withdrawn one is gone at once.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../src/delivery/signing.ts';
import { exampleEnv, installExample } from '../helpers/example-install.ts';
import { startHttpsFront, type HttpsFront } from '../helpers/https-front.ts';
import { testPki } from '../helpers/https-receiver.ts';
import { runCli, runProgram, startCli, startProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/nextjs');
const NEXT = path.join(EXAMPLE, 'node_modules', 'next', 'dist', 'bin', 'next');
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let next: Awaited<ReturnType<typeof startProgram>> | undefined;
let front: HttpsFront;
let env: Record<string, string>;
let api: string;
let key: string;
let site: string; // the Next.js server, plain http on loopback

const alpha = (body: string, title = 'Alpha') =>
  article({ title, status: 'published', author: 'ann', publishedAt: '2026-01-01T00:00:00Z' }, body);
const beta = (body: string) =>
  article({ title: 'Beta', status: 'published', publishedAt: '2026-01-02T00:00:00Z' }, body);

async function cli(args: string[]) {
  const r = await runCli(args, env);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}
const page = async (pathname: string) => {
  const res = await fetch(`${site}${pathname}`);
  return { status: res.status, text: await res.text() };
};
const served = async (slug: string) => {
  const res = await fetch(`${api}/v1/articles/${slug}`, { headers: { authorization: `Bearer ${key}` } });
  return (await res.json()) as { html: string; title: string };
};
/** After `quire build`: the running server takes up the new dist/ promptly, not at once. */
async function untilServed(slug: string, text: string): Promise<void> {
  for (const deadline = Date.now() + 15_000; !(await served(slug)).html?.includes(text); ) {
    if (Date.now() > deadline) throw new Error(`Quire does not serve "${text}" in ${slug}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const webhook = (body: Buffer, headers: Record<string, string>) =>
  fetch(`${site}/api/quire`, { method: 'POST', body, headers });
const payload = (slug: string) =>
  Buffer.from(
    JSON.stringify({
      event: 'updated',
      article: {
        id: slug,
        slug,
        title: slug,
        status: 'published',
        metaDescription: '',
        mdx: '',
        html: '',
        imageUrl: '',
        imageAlt: '',
      },
    }),
  );
const signed = (body: Buffer, secret = SECRET) =>
  deliveryHeaders({
    body,
    secret,
    event: 'updated',
    deliveryId: `dlv_${Math.random().toString(36).slice(2)}`,
    timestampSec: Math.floor(Date.now() / 1000),
    attempt: 1,
  });

beforeAll(async () => {
  const installSec = await installExample(EXAMPLE);
  if (installSec) process.stderr.write(`examples/nextjs: npm ci took ${installSec.toFixed(1)} s\n`);
  p = createTempProject({ git: true });
  writeSite(p, 'one');
  p.write('one/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  p.write('one/articles/alpha.md', alpha('Text of *alpha*.\n'));
  p.write('one/articles/beta.md', beta('Text of beta.\n'));
  p.commit('two articles', '2026-01-02T10:00:00Z');
  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: (await testPki()).caFile,
  };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /key: (pk_one\.\S+)[\s\S]*Publishing app: (\S+)\/admin/);
  [, key, api] = quire.match as unknown as [string, string, string];
  front = await startHttpsFront();

  const nextEnv = exampleEnv({
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    QUIRE_API_URL: api,
    QUIRE_KEY: key,
    QUIRE_WEBHOOK_SECRET: SECRET,
    SITE_URL: front.url,
  });
  // Next's bundler cache is kept between runs (.next/cache); cached fetches of other runs are not.
  fs.rmSync(path.join(EXAMPLE, '.next', 'cache', 'fetch-cache'), { recursive: true, force: true });
  const started = Date.now();
  const build = await runProgram(process.execPath, [NEXT, 'build'], nextEnv, EXAMPLE);
  expect(build.code, `${build.stdout}\n${build.stderr}`).toBe(0);
  process.stderr.write(`examples/nextjs: next build took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  expect(build.stdout).toMatch(/● \/blog\/alpha/); // prerendered at build time, from Quire
  next = await startProgram(
    process.execPath,
    [NEXT, 'start', '-H', '127.0.0.1', '-p', '0'],
    nextEnv,
    /Local:\s+(http:\/\/127\.0\.0\.1:\d+)/,
    60_000,
    EXAMPLE,
  );
  site = next.match[1]!;
  front.setOrigin(site);

  await cli(['webhook', 'set', 'one', '--url', `${front.url}/api/quire`, '--secret', SECRET, '--extra-events']);
  expect(await cli(['publish'])).toMatch(/Delivered 2 of 2 attempts/);
}, 300_000);

afterAll(async () => {
  await next?.stop();
  await front?.close();
  await quire?.stop();
  p?.cleanup();
});

describe('examples/nextjs', { timeout: 60_000 }, () => {
  it("renders Quire's articles: html as served, a self-canonical, the byline, the list", async () => {
    const { status, text } = await page('/blog/alpha');
    expect(status).toBe(200);
    expect(text).toContain((await served('alpha')).html);
    expect(text).toContain(`<link rel="canonical" href="${front.url}/blog/alpha"/>`);
    expect(text).toMatch(/class="byline">By <a href="https:\/\/ann\.example\.org\/">Ann Example<\/a>/);
    expect((await page('/')).text).toMatch(
      /<a href="\/blog\/alpha">Alpha<\/a>[\s\S]*<a href="\/blog\/beta">Beta<\/a>|<a href="\/blog\/beta">Beta<\/a>[\s\S]*<a href="\/blog\/alpha">Alpha<\/a>/,
    );
    expect((await page('/blog/nope')).status).toBe(404);
  });

  it('a published edit shows on the next request, without a rebuild; a forged webhook changes nothing', async () => {
    p.write('one/articles/alpha.md', alpha('Text of *alpha*, edited.\n', 'Alpha, edited'));
    p.commit('edit alpha', '2026-01-03T10:00:00Z');
    await cli(['build']); // Quire serves the edit now, but nothing told the site
    await untilServed('alpha', 'edited');
    expect((await page('/blog/alpha')).text).not.toContain('edited'); // the site's cached page

    const forged = await webhook(
      payload('alpha'),
      signed(payload('alpha'), `whsec_${Buffer.alloc(32, 1).toString('base64')}`),
    );
    expect(forged.status).toBe(401);
    const tampered = await webhook(payload('alpha'), signed(payload('beta')));
    expect(tampered.status).toBe(401);
    expect((await page('/blog/alpha')).text).not.toContain('edited');
    expect((await page('/')).text).not.toContain('Alpha, edited');

    expect(await cli(['publish'])).toMatch(/Delivered 1 of 1 attempt\./);
    const { text } = await page('/blog/alpha');
    expect(text).toContain((await served('alpha')).html);
    expect(text).toContain('Text of <em>alpha</em>, edited.');
    expect((await page('/')).text).toContain('Alpha, edited');
  });

  it('a webhook expires its article and the list, not other articles; it replies {url, id}', async () => {
    expect((await page('/blog/beta')).text).toContain('Text of beta.'); // rendered and cached now
    p.write('one/articles/beta.md', beta('Text of beta, edited.\n'));
    p.commit('edit beta', '2026-01-04T10:00:00Z');
    await cli(['build']);
    await untilServed('beta', 'edited');
    expect((await page('/blog/beta')).text).not.toContain('beta, edited');
    const body = payload('alpha');
    const res = await webhook(body, signed(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: `${front.url}/blog/alpha`, id: 'alpha' });
    expect((await page('/blog/beta')).text).not.toContain('beta, edited'); // not beta's tag

    expect(await cli(['publish'])).toMatch(/Delivered 1 of 1 attempt\./);
    expect((await page('/blog/beta')).text).toContain('Text of beta, edited.');
  });

  it('a newly published article appears, and a withdrawn one is gone, on the next request', async () => {
    expect((await page('/blog/gamma')).status).toBe(404);
    p.write(
      'one/articles/gamma.md',
      article({ title: 'Gamma', status: 'published', publishedAt: '2026-01-05T00:00:00Z' }, 'Text of gamma.\n'),
    );
    p.write('one/articles/beta.md', article({ title: 'Beta', status: 'draft' }, 'Text of beta, edited.\n'));
    p.commit('publish gamma, withdraw beta', '2026-01-05T10:00:00Z');
    // Straight to `quire publish` (it builds): its webhooks wait until the running server serves
    // the new build, so the page the site renders on the next request is the new one.
    expect(await cli(['publish'])).toMatch(/Delivered 2 of 2 attempts\./); // published gamma, unpublished beta
    const gamma = await page('/blog/gamma');
    expect(gamma.status).toBe(200);
    expect(gamma.text).toContain((await served('gamma')).html);
    expect((await page('/blog/beta')).status).toBe(404);
    const list = (await page('/')).text;
    expect(list).toContain('<a href="/blog/gamma">Gamma</a>');
    expect(list).not.toContain('/blog/beta');
  });
});
