// A branch preview end to end: Quire following a real bare repository with --previews, the
// reference site (examples/site) on local HTTPS with its preview route, `quire preview --ref`
// making the link, and Chromium opening it. The token names the branch; the site checks it with
// the receiver kit and fetches the branch's version with its preview key and `Quire-Ref`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { runCli, startCli } from '../helpers/run-cli.ts';
import { article, createTempProject, type TempProject } from '../helpers/temp-content.ts';
import { waitFor } from '../helpers/wait-for.ts';

const BRANCH = 'content/plans';
let p: TempProject;
let remote: string;
let quire: Awaited<ReturnType<typeof startCli>>;
let siteServer: HttpsApp;
let browser: Browser;
let env: Record<string, string>;

beforeAll(async () => {
  siteServer = await startHttpsApp();
  const siteUrl = siteServer.url;

  // main has one published article; the branch edits it and adds a draft.
  p = createTempProject({ git: true });
  fs.writeFileSync(path.join(p.root, '.gitignore'), '/.quire/\n/dist/\n/.dist.*\n');
  p.write(
    'notes/site.yaml',
    `name: Notes\nlang: en\nurl: ${siteUrl}\npreviewUrl: ${siteUrl}/api/preview?slug={slug}&token={token}\n`,
  );
  p.write('notes/articles/live.md', article({ title: 'Live already', status: 'published' }, 'As published.\n'));
  p.commit('first', '2026-03-01T10:00:00Z');
  remote = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-remote-'));
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  p.git('remote', 'add', 'origin', remote);
  p.git('push', '-q', 'origin', 'main');
  p.git('checkout', '-q', '-b', BRANCH);
  p.write('notes/articles/live.md', article({ title: 'Live already', status: 'published' }, 'As the branch has it.\n'));
  p.write('notes/articles/plans.md', article({ title: 'Secret plans', status: 'draft' }, 'Only on the branch.\n'));
  p.commit('plans', '2026-03-02T10:00:00Z');
  p.git('push', '-q', 'origin', BRANCH);
  p.git('checkout', '-q', 'main');

  env = {
    QUIRE_CONTENT_DIR: p.contentDir,
    QUIRE_DIST_DIR: p.distDir,
    QUIRE_STATE_DIR: p.stateDir,
    QUIRE_SECRET: 'p'.repeat(40),
  };
  quire = await startCli(
    ['start', '--follow', remote, '--interval', '1', '--previews', 'content/*'],
    { ...env, PORT: '0' },
    /Content API on (\S+)\/v1/,
  );
  await waitFor(() => quire.output().includes(`Branch preview ${BRANCH}: serving commit`), quire.output, 60_000);
  const keys = JSON.parse((await runCli(['keys', '--json'], env)).stdout) as { key: string; previewKey: string }[];
  const site = createExampleSite({
    secret: 'unused-webhook-secret-000000000',
    apiBase: `${quire.match[1]}/v1`,
    apiKey: keys[0]!.key,
    previewKey: keys[0]!.previewKey,
    publicUrl: siteUrl,
  });
  siteServer.setHandler(site.app.fetch);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--ignore-certificate-errors'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await quire?.stop();
  await siteServer?.close();
  p?.cleanup();
  if (remote) fs.rmSync(remote, { recursive: true, force: true });
});

async function open(url: string) {
  const page = await browser.newPage();
  const res = await page.goto(url);
  const text = await page.locator('body').innerText();
  await page.close();
  return { status: res!.status(), headers: res!.headers(), text };
}

async function linkFor(slug: string, ...args: string[]): Promise<string> {
  const made = await runCli(['preview', 'notes', slug, ...args, '--json'], env);
  expect(made.code, made.stderr).toBe(0);
  return (JSON.parse(made.stdout) as { url: string }).url;
}

describe('a branch preview on the site', { timeout: 120_000 }, () => {
  it("opens the branch's draft from the link `quire preview --ref` prints, uncached and unindexed", async () => {
    const page = await open(await linkFor('plans', '--ref', BRANCH));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Secret plans');
    expect(page.text).toContain('Only on the branch.');
    expect(page.text).toMatch(/Preview of a draft article on the branch content\/plans, until \S+Z\. Not public\./);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex');
  });

  it("opens the branch's version of a published article; a link without --ref opens the one served", async () => {
    const onBranch = await open(await linkFor('live', '--ref', BRANCH));
    expect(onBranch.status).toBe(200);
    expect(onBranch.text).toContain('As the branch has it.');
    const served = await open(await linkFor('live'));
    expect(served.status).toBe(200);
    expect(served.text).toContain('As published.');
    expect(served.text).not.toContain('on the branch');
    // The draft exists only on the branch: the followed branch has no such article.
    const made = await runCli(['preview', 'notes', 'plans', '--json'], env);
    expect(made.code).toBe(1);
    expect(made.stderr).toContain('[ARTICLE_UNKNOWN]');
  });
});
