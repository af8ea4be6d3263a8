// `quire conformance` as a site owner's CI runs it: the real command line against the reference
// site on loopback HTTPS, with the secret of the registered webhook (never printed). Exit 0 when
// no rule fails, warnings included; 1 on a failure; --url replaces the registered URL, checked
// as a webhook URL is; a site without a webhook is told so.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExampleSite } from '../../examples/site/site.ts';
import { startHttpsApp, type HttpsApp } from '../helpers/https-receiver.ts';
import { runCli } from '../helpers/run-cli.ts';
import { createTempProject, projectFolders, writeSite, type TempProject } from '../helpers/temp-content.ts';

const SECRET = 'conformance-cli-webhook-secret-0123456789';
let app: HttpsApp;
let site: ReturnType<typeof createExampleSite>;
let p: TempProject;
let env: Record<string, string>;

beforeAll(async () => {
  app = await startHttpsApp();
  site = createExampleSite({
    secret: SECRET,
    apiBase: 'https://api.invalid/v1',
    apiKey: 'pk_one.unused',
    publicUrl: app.url,
    fetchImpl: () => Promise.reject(new Error('a test article was looked up in the Content API')),
  });
  app.setHandler(site.app.fetch);
  p = createTempProject();
  writeSite(p, 'one');
  writeSite(p, 'two');
  env = { ...projectFolders(p), QUIRE_ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: app.caFile };
  const set = await runCli(['webhook', 'set', 'one', '--url', `${app.url}/webhooks/quire`, '--secret', SECRET], env);
  expect(set.code, set.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await app?.close();
  p?.cleanup();
});
afterEach(() => site.faults.clear());

interface Report {
  ok: boolean;
  verifies: string | null;
  testSlug: string;
  rules: { id: string; ok: boolean; warning?: boolean; code?: string; detail: string; fix?: string }[];
}

describe('quire conformance', { timeout: 60_000 }, () => {
  it('prints a table of the rules the reference site passes, and exits 0; the secret is never printed', async () => {
    const r = await runCli(['conformance', 'one'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Conformance of the receiver of one: ${app.url}/webhooks/quire`);
    expect(r.stdout).toMatch(/^Test article: quire-conformance-[0-9a-f]{10}$/m);
    for (const id of [
      'published',
      'redelivery',
      'updated',
      'out-of-date',
      'forged',
      'verification',
      'raw-body',
      'live-page',
    ])
      expect(r.stdout).toMatch(new RegExp(`^ {2}pass {2}${id} +\\S`, 'm'));
    expect(r.stdout).toMatch(/^left on the receiver: quire-conformance-/m);
    expect(r.stdout).toMatch(/^8 passed, 0 warnings, 0 failed$/m);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('exits 1 on a failed rule, and --json gives {rules: [{id, ok, warning?, detail, fix?}]}', async () => {
    site.faults.add('accepts-forged');
    const r = await runCli(['conformance', 'one', '--json'], env);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.ok).toBe(false);
    const forged = report.rules.find((x) => x.id === 'forged')!;
    expect(forged).toMatchObject({ ok: false, code: 'FORGED_ACCEPTED', fix: expect.stringMatching(/401/) });
    expect(report.rules.filter((x) => !x.ok).map((x) => x.id)).toEqual(['forged']);
    expect(r.stdout).not.toContain(SECRET);
  });

  it('exits 0 with only a warning: a receiver that checks only the Bearer token', async () => {
    site.faults.add('bearer-only');
    const r = await runCli(['conformance', 'one'], env);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^ {2}WARN {2}verification +checks only the Bearer token/m);
    expect(r.stdout).toMatch(/^ +\[SIGNATURE_NOT_CHECKED\] fix: Verify the signature over the raw body/m);
    expect(r.stdout).toMatch(/^7 passed, 1 warning, 0 failed$/m);
  });

  it('--url sends to another receiver with the registered secret; a URL that is not https is refused', async () => {
    // The registered URL answers nothing: only --url is used.
    const moved = await runCli(['webhook', 'set', 'one', '--url', 'https://127.0.0.1:9/webhooks/quire'], env);
    expect(moved.code, moved.stderr).toBe(0);
    try {
      const r = await runCli(['conformance', 'one', '--url', `${app.url}/webhooks/quire`, '--json'], env);
      expect(r.code, r.stdout).toBe(0);
      expect((JSON.parse(r.stdout) as Report).rules.every((x) => x.ok)).toBe(true);
      const plain = await runCli(['conformance', 'one', '--url', 'http://127.0.0.1:9/hook'], env);
      expect(plain.code).toBe(1);
      expect(plain.stderr).toMatch(/webhook URLs must use https.*\[URL_NOT_HTTPS\]/);
    } finally {
      await runCli(['webhook', 'set', 'one', '--url', `${app.url}/webhooks/quire`], env);
    }
  });

  it('a site without a webhook is told to save one first; an unknown site is named', async () => {
    const none = await runCli(['conformance', 'two'], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no webhook is saved for two.*quire webhook set two.*\[NO_WEBHOOK\]/);
    const unknown = await runCli(['conformance', 'nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no site "nope"/);
  });
});
