// `npm run example:site` as a user runs it: it starts the reference site on local HTTPS with a
// throwaway CA and prints what to set in Quire; with exactly those settings, Quire's own
// commands deliver to it (webhook test, publish), `quire verify` passes every check and `quire
// conformance` every rule.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, startProgram } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
let quire: Awaited<ReturnType<typeof startCli>>;
let site: Awaited<ReturnType<typeof startProgram>>;
let env: Record<string, string>;

beforeAll(async () => {
  p = createTempProject();
  writeSite(p, 'one');
  p.write('one/authors/ann.yaml', 'name: Ann Example\nurl: https://ann.example.org/\n');
  p.write(
    'one/articles/a.md',
    article(
      { title: 'A', status: 'published', author: 'ann', publishedAt: '2026-01-01', updatedAt: '2026-01-02' },
      'Text of *A*.\n',
    ),
  );
  env = { QUIRE_CONTENT_DIR: p.contentDir, QUIRE_DIST_DIR: p.distDir, QUIRE_STATE_DIR: p.stateDir };
  quire = await startCli(['start'], { ...env, PORT: '0' }, /Publishing app: (\S+)\/admin/);
  site = await startProgram(
    'npm',
    ['run', '--silent', 'example:site', '--', '--site', 'one'],
    { ...env, EXAMPLE_SITE_PORT: '0', QUIRE_API: `${quire.match[1]}/v1` },
    /Stop with Ctrl-C/,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await site?.stop();
  await quire?.stop();
  p?.cleanup();
});

describe('npm run example:site', { timeout: 120_000 }, () => {
  it('prints the webhook URL, the secret and the settings; with them Quire delivers to it and verify passes', async () => {
    const out = site.output();
    const webhookUrl = out.match(/^Webhook URL: +(https:\/\/127\.0\.0\.1:\d+\/webhooks\/quire)$/m)?.[1];
    const secret = out.match(/^Webhook secret: +(\S+)$/m)?.[1];
    const caFile = out.match(/^ {2}export NODE_EXTRA_CA_CERTS=(\S+)$/m)?.[1];
    expect(out).toMatch(/^ {2}export QUIRE_ALLOW_PRIVATE_TARGETS=1$/m);
    expect({ webhookUrl, secret, caFile }).toEqual({
      webhookUrl: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
      caFile: expect.any(String),
    });
    expect(fs.readFileSync(caFile!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const setLine = out.match(/^ {2}npm run quire -- (webhook set .*)$/m)![1]!;
    expect(setLine).toBe(`webhook set one --url ${webhookUrl} --secret ${secret}`);

    const withSettings = { ...env, NODE_EXTRA_CA_CERTS: caFile!, QUIRE_ALLOW_PRIVATE_TARGETS: '1' };
    const set = await runCli(setLine.split(' '), withSettings);
    expect(set.code, set.stderr).toBe(0);
    const test = await runCli(['webhook', 'test', 'one'], withSettings);
    expect(test.code, test.stderr).toBe(0);
    expect(test.stdout).toMatch(/Success: the receiver accepted the delivery with HTTP 200/);
    const published = await runCli(['publish'], withSettings);
    expect(published.code, published.stderr).toBe(0);

    const siteUrl = webhookUrl!.replace(/\/webhooks\/quire$/, '');
    const verify = await runCli(['verify', 'one', '--url', siteUrl, '--json'], withSettings);
    const report = JSON.parse(verify.stdout) as {
      ok: boolean;
      articles: { checks: { id: string; status: string; message: string }[] }[];
    };
    expect(report.articles.flatMap((a) => a.checks.filter((c) => c.status !== 'pass'))).toEqual([]);
    expect(report.ok).toBe(true);
    expect(verify.code).toBe(0);

    // The command it prints last: the site's receiver passes every rule.
    expect(out).toMatch(/^ {2}npm run quire -- conformance one$/m);
    const conformance = await runCli(['conformance', 'one'], withSettings);
    expect(conformance.stdout).toMatch(/^8 passed, 0 warnings, 0 failed$/m);
    expect(conformance.code, conformance.stdout).toBe(0);
  });
});
