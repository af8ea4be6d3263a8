// `quire status`: upcoming go-lives and expiries from the real build, through the real CLI.
import { afterEach, describe, expect, it } from 'vitest';
import { formatInZone } from '../../src/schedule/zone-time.ts';
import { runCli } from '../helpers/run-cli.ts';
import { createTempProject, writeSite, type TempProject } from '../helpers/temp-content.ts';

let p: TempProject;
afterEach(() => p?.cleanup());

const env = () => ({
  QUIRE_CONTENT_DIR: p.contentDir,
  QUIRE_DIST_DIR: p.distDir,
  QUIRE_STATE_DIR: p.stateDir,
  QUIRE_SECRET: 's'.repeat(40),
});
const post = (front: string) => `---\ntitle: T\nstatus: published\n${front}---\nBody\n`;

function project(): void {
  p = createTempProject();
  writeSite(p, 'paris', 'name: Paris\nlang: fr\nurl: https://paris.example.com\ntimezone: Europe/Paris\n');
  writeSite(p, 'utc');
  p.write('paris/articles/later.md', post('publishedAt: 2099-07-01T08:00:00Z\nexpiresAt: 2099-08-01T00:00:00Z\n'));
  p.write('paris/articles/now.md', post('publishedAt: 2026-01-01\n'));
  p.write('paris/articles/draft.md', '---\ntitle: D\npublishedAt: 2099-01-01\n---\n');
  p.write('utc/articles/ending.md', post('publishedAt: 2026-01-01\nexpiresAt: 2099-01-02T03:04:05Z\n'));
  p.write('utc/articles/ended.md', post('publishedAt: 2026-01-01\nexpiresAt: 2026-02-01\n'));
}

describe('quire status', () => {
  it('lists what goes live or expires next, soonest first, in UTC and the site zone', async () => {
    project();
    expect((await runCli(['build'], env())).code).toBe(0);
    const r = await runCli(['status', '--json'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        site: 'utc',
        slug: 'ending',
        change: 'expires',
        at: '2099-01-02T03:04:05Z',
        timezone: 'UTC',
        local: '2099-01-02 03:04 UTC',
      },
      {
        site: 'paris',
        slug: 'later',
        change: 'goes-live',
        at: '2099-07-01T08:00:00Z',
        timezone: 'Europe/Paris',
        local: '2099-07-01 10:00 GMT+2',
      },
      {
        site: 'paris',
        slug: 'later',
        change: 'expires',
        at: '2099-08-01T00:00:00Z',
        timezone: 'Europe/Paris',
        local: '2099-08-01 02:00 GMT+2',
      },
    ]);
    const table = (await runCli(['status', '--site', 'paris'], env())).stdout.trim().split('\n');
    expect(table[0]).toMatch(/^WHEN \(UTC\)\s+SITE TIME\s+SITE\s+CHANGE\s+ARTICLE$/);
    expect(table.slice(1)).toEqual([
      expect.stringMatching(/^2099-07-01 08:00:00Z\s+2099-07-01 10:00 GMT\+2\s+paris\s+goes live\s+later$/),
      expect.stringMatching(/^2099-08-01 00:00:00Z\s+2099-08-01 02:00 GMT\+2\s+paris\s+expires\s+later$/),
    ]);
  });

  it('says when nothing is scheduled, and when there is no build', async () => {
    p = createTempProject();
    writeSite(p, 'utc');
    const none = await runCli(['status'], env());
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/run `quire build` .*  \[BUILD_MISSING\]\n$/);
    expect((await runCli(['build'], env())).code).toBe(0);
    expect((await runCli(['status'], env())).stdout).toMatch(/^Nothing scheduled/);
  });
});

describe('times in a site zone', () => {
  it('follows daylight saving, and calls UTC by its name', () => {
    expect(formatInZone(Date.parse('2026-01-15T12:00:00Z'), 'Europe/Paris')).toBe('2026-01-15 13:00 GMT+1');
    expect(formatInZone(Date.parse('2026-07-15T12:00:00Z'), 'Europe/Paris')).toBe('2026-07-15 14:00 GMT+2');
    expect(formatInZone(Date.parse('2026-07-15T12:00:00Z'), 'America/St_Johns')).toBe('2026-07-15 09:30 GMT-2:30');
    expect(formatInZone(Date.parse('2026-07-15T12:00:00Z'), 'UTC')).toBe('2026-07-15 12:00 UTC');
  });
});
