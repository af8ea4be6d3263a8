// `quire preview`: the real CLI in child processes; the link it prints is checked with the
// receiver kit, as a site's preview route would.
import { afterEach, describe, expect, it } from 'vitest';
import { verifyPreviewToken } from '../../src/receiver/verify-webhook.ts';
import { runCli } from '../helpers/run-cli.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const SECRET = 'a-server-secret-that-stays-the-same-0123456789';
const env = () => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_SECRET: SECRET,
});
const TEMPLATE = 'https://one.example.com/api/preview?slug={slug}&token={token}';

function project(previewUrl: string | null = TEMPLATE): void {
  p = createTempProject();
  writeSite(
    p,
    'one',
    `name: One\nlang: en\nurl: https://one.example.com\n${previewUrl ? `previewUrl: ${previewUrl}\n` : ''}`,
  );
  p.write('one/articles/draft.md', article({ title: 'Draft', status: 'draft' }));
}

async function previewKey(): Promise<string> {
  return (JSON.parse((await runCli(['keys', '--site', 'one', '--json'], env())).stdout) as { previewKey: string }[])[0]!
    .previewKey;
}

describe('quire preview', () => {
  it('prints a link to the draft that the site can verify with the kit, valid for 24 h by default', async () => {
    project();
    const before = Date.now();
    const r = await runCli(['preview', 'one', 'draft', '--json'], env());
    const after = Date.now();
    expect(r.code, r.stderr).toBe(0);
    const { url, token, expiresAt } = JSON.parse(r.stdout) as { url: string; token: string; expiresAt: string };
    const link = new URL(url);
    expect(`${link.origin}${link.pathname}`).toBe('https://one.example.com/api/preview');
    expect(link.searchParams.get('slug')).toBe('draft');
    expect(link.searchParams.get('token')).toBe(token);
    // 24 h from when the command ran, to the second (rounded down).
    expect(Date.parse(expiresAt)).toBeGreaterThan(before + 24 * 3_600_000 - 1_000);
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + 24 * 3_600_000);
    const key = await previewKey();
    expect(verifyPreviewToken(token, key, { slug: 'draft', site: 'one' })).toEqual({
      ok: true,
      site: 'one',
      slug: 'draft',
      expiresAt,
    });
    expect(
      verifyPreviewToken(token, key, { slug: 'draft', site: 'one', now: () => Date.parse(expiresAt) }),
    ).toMatchObject({ ok: false, reason: 'expired' });

    const text = await runCli(['preview', 'one', 'draft', '--ttl', '90m'], env());
    expect(text.code).toBe(0);
    expect(text.stdout.trim()).toMatch(
      /^https:\/\/one\.example\.com\/api\/preview\?slug=draft&token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/,
    );
    expect(text.stderr).toMatch(/Opens the draft "draft" until \S+Z \(UTC\)/);
  });

  it('a rotated preview key ends the links made before', async () => {
    project();
    const { token } = JSON.parse((await runCli(['preview', 'one', 'draft', '--json'], env())).stdout) as {
      token: string;
    };
    expect((await runCli(['keys', 'rotate', 'one', '--preview'], env())).code).toBe(0);
    expect(verifyPreviewToken(token, await previewKey(), { slug: 'draft', site: 'one' })).toMatchObject({
      ok: false,
      reason: 'signature',
    });
  });

  it.each([
    [['preview', 'one'], 2, /usage: quire preview <site> <slug>/],
    [['preview', 'one', 'draft', '--ttl', '31d'], 2, /--ttl "31d" is not a duration/],
    [['preview', 'one', 'draft', '--ttl', 'soon'], 2, /--ttl "soon" is not a duration/],
    [['preview', 'nope', 'draft'], 1, /no site "nope"/],
    [['preview', 'one', 'missing'], 1, /^no article "missing" in site "one" .*  \[ARTICLE_UNKNOWN\]$/m],
  ])('%j fails with a clear message and prints no link', async (args, code, message) => {
    project();
    const r = await runCli(args, env());
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('a site without previewUrl is told how to add one', async () => {
    project(null);
    const r = await runCli(['preview', 'one', 'draft'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'previewUrl: https://one.example.com/api/preview?slug={slug}&token={token}  [PREVIEW_URL_MISSING]',
    );
    expect(r.stdout).toBe('');
  });

  it('calls each article what it is now: draft, scheduled (published, its publishedAt ahead), published, expired', async () => {
    project();
    p.write(
      'one/articles/later.md',
      article({ title: 'Later', status: 'published', publishedAt: '2099-01-01T00:00:00Z' }),
    );
    p.write(
      'one/articles/live.md',
      article({ title: 'Live', status: 'published', publishedAt: '2026-01-01T00:00:00Z' }),
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
    for (const [slug, state] of [
      ['draft', 'draft'],
      ['later', 'scheduled'],
      ['live', 'published'],
      ['gone', 'expired'],
    ]) {
      const r = await runCli(['preview', 'one', slug!], env());
      expect({ slug, code: r.code, said: r.stderr }).toEqual({
        slug,
        code: 0,
        said: expect.stringMatching(new RegExp(`^Opens the ${state} "${slug}" until `)),
      });
    }
  });

  it('refuses --ref, --changed, --base and --format used wrongly, and a branch no server here previews', async () => {
    project();
    const usage = [
      ['preview', '--changed'],
      ['preview', 'one', 'draft', '--changed', '--ref', 'x'],
      ['preview', '--changed', '--ref', 'x', '--json'],
      ['preview', 'one', 'draft', '--base', 'main'],
      ['preview', 'one', 'draft', '--format', 'json'],
      ['preview', 'one', 'draft', '--ref', '--upload-pack=x'],
      ['preview', 'one', 'draft', '--ref=a..b'],
      ['preview', '--changed', '--ref', 'x', '--format', 'html'],
    ];
    for (const args of usage) {
      const r = await runCli(args, env());
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain('[COMMAND_LINE_INVALID]');
    }
    const one = await runCli(['preview', 'one', 'draft', '--ref', 'content/x'], env());
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/no preview of the branch "content\/x" .*\[BRANCH_NOT_PREVIEWED\]/);
    const changed = await runCli(['preview', '--changed', '--ref', 'content/x'], env());
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('[BRANCH_NOT_PREVIEWED]');
    expect(changed.stdout).toBe('');
  });
});
