// The front matter and site.yaml fields scheduling and preview read: expiresAt, timezone, previewUrl.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/compile/build.ts';
import { formatIssue } from '../../src/content/issues.ts';
import { loadContent } from '../../src/content/load-content.ts';
import { article, createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const SITE = 'name: S\nlang: en\nurl: https://s.example.com\n';

async function issuesOf(files: Record<string, string>) {
  p = createTempProject();
  writeSite(p, 's', files['s/site.yaml'] ?? SITE);
  for (const [name, text] of Object.entries(files)) if (name !== 's/site.yaml') p.write(name, text);
  const { issues, sites } = await loadContent(p.contentDir);
  return { issues: issues.map((i) => ({ ...i, text: formatIssue(i, p.contentDir) })), sites };
}

describe('expiresAt', () => {
  it('is read as UTC with second precision, an offset applied', async () => {
    const { issues, sites } = await issuesOf({
      's/articles/a.md':
        '---\ntitle: A\nstatus: published\npublishedAt: 2026-03-01\nexpiresAt: 2026-04-01T12:00:00+02:00\n---\nBody\n',
    });
    expect(issues).toEqual([]);
    expect(sites[0]!.articles[0]!.meta.expiresAt).toBe('2026-04-01T10:00:00Z');
  });

  it('a bad date is a problem at its line', async () => {
    const { issues } = await issuesOf({
      's/articles/a.md': '---\ntitle: A\nstatus: published\nexpiresAt: next week\n---\n',
    });
    expect(issues.map((i) => i.text)).toEqual([
      expect.stringMatching(
        /^s\/articles\/a\.md:4:12  `expiresAt` is not a valid date: "next week"  \[CONTENT_DATE_INVALID\]/,
      ),
    ]);
  });

  it.each([
    ['before', '2026-02-01'],
    ['equal to', '2026-03-01T00:00:00Z'],
  ])('%s publishedAt is a problem at the expiresAt line', async (_label, expiresAt) => {
    const { issues } = await issuesOf({
      's/articles/a.md': `---\ntitle: A\nstatus: published\npublishedAt: 2026-03-01\nexpiresAt: ${expiresAt}\n---\n`,
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.code).toBe('CONTENT_EXPIRY_BEFORE_PUBLISH');
    expect(issues[0]!.severity).toBe('error');
    expect(issues[0]!.line).toBe(5);
    expect(issues[0]!.text).toContain('is not after `publishedAt` (2026-03-01T00:00:00Z)');
  });

  it('a bad publishedAt is reported once, and no expiry problem is made up from it', async () => {
    const { issues } = await issuesOf({
      's/articles/a.md': '---\ntitle: A\npublishedAt: 2026-02-30\nexpiresAt: 2026-01-01\n---\n',
    });
    expect(issues.map((i) => i.code)).toEqual(['CONTENT_DATE_INVALID']);
  });

  it('before the first-published date from git history fails the build at the expiresAt line', async () => {
    p = createTempProject({ git: true });
    writeSite(p, 's', SITE);
    p.write('s/articles/a.md', article({ title: 'A', status: 'published' }));
    p.commit('first', '2026-05-01T00:00:00Z');
    p.write('s/articles/a.md', '---\ntitle: A\nstatus: published\nexpiresAt: 2026-04-01\n---\nBody\n');
    p.commit('expire', '2026-06-01T00:00:00Z');
    const build = await buildExport({
      contentDir: p.contentDir,
      distDir: p.distDir,
      stateDir: p.stateDir,
      publicUrl: 'http://x',
    });
    const found = build.issues.filter((i) => i.code === 'CONTENT_EXPIRY_BEFORE_PUBLISH');
    expect(found).toHaveLength(1);
    expect(found[0]!.file).toBe(path.join(p.contentDir, 's/articles/a.md'));
    expect(found[0]!.line).toBe(4);
    expect(found[0]!.message).toContain('2026-05-01T00:00:00Z, from git history');
  });
});

describe('site.yaml timezone', () => {
  it('defaults to UTC and takes an IANA name', async () => {
    expect((await issuesOf({})).sites[0]!.site.timezone).toBe('UTC');
    const { issues, sites } = await issuesOf({ 's/site.yaml': `${SITE}timezone: Europe/Paris\n` });
    expect(issues).toEqual([]);
    expect(sites[0]!.site.timezone).toBe('Europe/Paris');
  });

  it.each(['Mars/Olympus_Mons', '+02:00', 'Europe/../../etc', 'utc//x'])('refuses %j at its line', async (zone) => {
    const { issues } = await issuesOf({ 's/site.yaml': `${SITE}timezone: ${JSON.stringify(zone)}\n` });
    const codes = issues.map((i) => `${i.line}:${i.code}`);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.every((c) => c.startsWith('4:'))).toBe(true);
  });
});

describe('site.yaml previewUrl', () => {
  it('takes an https template with {slug} and {token}', async () => {
    const template = 'https://s.example.com/api/preview?slug={slug}&token={token}';
    const { issues, sites } = await issuesOf({ 's/site.yaml': `${SITE}previewUrl: ${template}\n` });
    expect(issues).toEqual([]);
    expect(sites[0]!.site.previewUrl).toBe(template);
    expect((await issuesOf({})).sites[0]!.site.previewUrl).toBeNull();
  });

  it('allows http only on a loopback host', async () => {
    const { issues } = await issuesOf({
      's/site.yaml': `${SITE}previewUrl: http://localhost:3000/preview/{slug}?t={token}\n`,
    });
    expect(issues).toEqual([]);
  });

  it.each([
    ['no token', 'https://s.example.com/preview/{slug}', 'must contain {slug} and {token}'],
    ['plain http', 'http://s.example.com/p?slug={slug}&token={token}', 'must use https'],
    ['a placeholder in the host', 'https://{slug}.example.com/p?token={token}', 'host'],
    ['credentials', 'https://u:p@s.example.com/p?slug={slug}&token={token}', 'user name'],
    ['not a URL', '/preview?slug={slug}&token={token}', 'not an absolute URL'],
  ])('refuses %s', async (_label, template, message) => {
    const { issues } = await issuesOf({ 's/site.yaml': `${SITE}previewUrl: ${JSON.stringify(template)}\n` });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'CONTENT_URL_INVALID', line: 4 });
    expect(issues[0]!.message).toContain(message);
  });
});
